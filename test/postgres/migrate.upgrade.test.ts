/**
 * A schema made by an earlier litejobs upgrades in place: migrations run by
 * level, so a level shipped once is never changed, and a new one (level 10:
 * the trace context, and the claim function made again to answer it) finds
 * the schema as the earlier version left it. Its jobs then run, and its
 * claim function is the one a new schema gets.
 */
import { expect, it } from 'vitest';
import { createQueue, defineJob, type Queue } from '../../src/index.js';
import { migrations } from '../../src/store/postgres/sql.js';
import { pgClient, pgUrl } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { usePgStores } from './fixture.js';

const pg = usePgStores();

it('a schema at level 9 (before trace contexts) upgrades to the newest level: its pending job runs, and its claim function is a new schema’s', async () => {
  const old = pg.schema();
  const fresh = pg.schema();
  const admin = await pgClient();
  const queues: Queue[] = [];
  try {
    // The schema as litejobs at level 9 left it, with a job it wrote.
    await admin.query(`CREATE SCHEMA "${old}"`);
    await admin.query('BEGIN');
    for (const m of migrations(old).filter((m) => m.level <= 9)) await admin.query(m.text);
    await admin.query(`INSERT INTO "${old}".queue_meta (key, value) VALUES ('migration_level', 9)`);
    await admin.query(`INSERT INTO "${old}".jobs (name, state, payload, priority, run_at, created_at, updated_at) VALUES ('old', 'pending', '{"n":1}', 0, 0, 0, 0)`);
    await admin.query('COMMIT');

    const ran: unknown[] = [];
    const q = createQueue({ connection: pgUrl(), schema: old, logger: silentLogger, jobs: [defineJob({ name: 'old', handler: async (p) => void ran.push(p) })] });
    queues.push(q);
    await q.start();
    await expect.poll(() => ran, { timeout: 20_000 }).toEqual([{ n: 1 }]);
    const level = await admin.query<{ value: string }>(`SELECT value FROM "${old}".queue_meta WHERE key = 'migration_level'`);
    expect(Number(level.rows[0]!.value)).toBe(migrations(old).at(-1)!.level);

    const made = createQueue({ connection: pgUrl(), schema: fresh, logger: silentLogger });
    queues.push(made);
    await made.stats();
    const definition = async (schema: string) =>
      (await admin.query<{ def: string }>(`SELECT pg_get_functiondef('"${schema}".claim_ready'::regproc) AS def`)).rows[0]!.def.replaceAll(schema, 'S');
    expect(await definition(old)).toBe(await definition(fresh));
  } finally {
    for (const q of queues) await q.close();
    await admin.end();
  }
});
