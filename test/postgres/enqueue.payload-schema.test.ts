/**
 * A job's schema on the enqueue through the caller's own client: a refused
 * payload sends nothing on the caller's connection (its transaction goes on
 * unharmed), and what commits is the schema's output.
 */
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { createQueue, defineJob, PayloadValidationError, type Queue } from '../../src/index.js';
import type { Client } from '../../src/store/postgres/driver.js';
import { pgClient, pgUrl, usePgSchema } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';

const schema = usePgSchema();
const open: Array<Pick<Queue, 'close'> | Client> = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await ('close' in x ? x.close() : x.end());
});

const invoice = defineJob({
  name: 'invoice',
  schema: z.object({ order: z.number().int(), currency: z.string().toUpperCase().default('EUR') }),
  handler: async ({ order }) => order,
});

it("refuses a bad payload before the caller's transaction sees anything, and commits the schema's output", async () => {
  const s = schema();
  const q = createQueue({ connection: pgUrl(), schema: s, logger: silentLogger, jobs: [invoice] });
  open.push(q);
  await q.stats(); // migrated before the caller's transaction starts
  const app = await pgClient();
  open.push(app);
  await app.query(`CREATE TABLE "${s}_orders" (id int PRIMARY KEY)`);

  await app.query('BEGIN');
  await app.query(`INSERT INTO "${s}_orders" VALUES (42)`);
  await expect(q.enqueue('invoice', { order: 4.2 }, { client: app })).rejects.toBeInstanceOf(PayloadValidationError);
  const err = await q.enqueueMany([{ name: 'invoice', payload: { order: 1 } }, { name: 'invoice', payload: { order: 'two' } as never }], { client: app }).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'LJ_ERR_INVALID_PAYLOAD', index: 1, issues: [{ path: ['order'] }] });
  // The transaction is not aborted: the caller's writes and a good job commit together.
  const { id } = await q.enqueue('invoice', { order: 42, currency: 'usd' }, { client: app });
  const [, second] = await q.enqueueMany([{ name: 'invoice', payload: { order: 43 } }, { name: 'invoice', payload: { order: 44 } }], { client: app });
  await app.query('COMMIT');

  expect((await app.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${s}_orders"`)).rows[0]!.n).toBe(1);
  expect((await q.stats()).total).toBe(3);
  expect((await q.getJob(id)).payload).toEqual({ order: 42, currency: 'USD' });
  expect((await q.getJob(second!.id)).payload).toEqual({ order: 44, currency: 'EUR' });
});
