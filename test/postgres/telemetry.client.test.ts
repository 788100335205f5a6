/**
 * Enqueue through the caller's own client on PostgreSQL, traced: the job
 * written in the application's transaction stores the caller's trace, and
 * the attempt that runs it after the commit sits in that trace.
 */
import { trace } from '@opentelemetry/api';
import { afterEach, expect, it } from 'vitest';
import { createQueue, defineJob, type Queue } from '../../src/index.js';
import type { Client } from '../../src/store/postgres/driver.js';
import { parentOf, registered, useTraces } from '../helpers/otel.js';
import { pgClient, pgUrl, usePgSchema } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { waitFor } from '../helpers/wait.js';

const schema = usePgSchema();
const traces = useTraces();
const open: Array<Queue | Client> = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await ('stop' in x ? x.close() : x.end());
});

it("a job enqueued with { client } in the caller's transaction runs in the caller's trace", async () => {
  registered(traces);
  const q = createQueue({ connection: pgUrl(), schema: schema(), logger: silentLogger, jobs: [defineJob({ name: 'email', handler: async () => 'sent' })] });
  open.push(q);
  const app = await pgClient();
  open.push(app);
  await q.stats(); // migrated before the caller's transaction starts

  const { id } = await trace.getTracer('app').startActiveSpan('place order', async (span) => {
    try {
      await app.query('BEGIN');
      const r = await q.enqueue('email', { order: 1 }, { client: app });
      await app.query('COMMIT');
      return r;
    } finally {
      span.end();
    }
  });
  await q.start();
  await waitFor(() => traces.named('process email').length === 1, 20_000);
  const send = traces.one('send email');
  expect(parentOf(send)).toBe(traces.one('place order').spanContext().spanId);
  expect(send.attributes['messaging.message.id']).toBe(String(id));
  expect(parentOf(traces.one('process email'))).toBe(send.spanContext().spanId);
});
