/**
 * The http benchmark's validity rules, on real servers over loopback: a run
 * with any non-2xx answer does not count, a clean run does, and the store
 * check holds every acknowledged job (plus at most the requests cut off when
 * the load stopped) — and flags a store missing one.
 */
import Database from 'better-sqlite3';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { runLoad, storedProblems } from '../../bench/lib/http-load.js';
import { invalidateFailed } from '../../bench/scenarios/http.js';
import type { RowResult } from '../../bench/lib/types.js';
import { startServer } from '../../src/http/index.js';
import { createQueue } from '../../src/index.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';

const load = { body: '{"type":"invoice.paid","amount":4200}', seconds: 1, connections: 4, pipelining: 1 };
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A bare fastify server whose `POST /v1/hooks/:name` answers `status(n)` for its n-th request. */
async function serve(status: (n: number) => number): Promise<string> {
  const app: FastifyInstance = Fastify({ logger: false });
  let n = 0;
  app.post('/v1/hooks/:name', async (_request, reply) => reply.code(status(++n)).send({ id: n }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close());
  return url;
}

describe('http benchmark: what makes a measurement count', () => {
  it('counts a run where every answer is 2xx', async () => {
    const url = await serve(() => 201);
    const r = await runLoad({ ...load, url: `${url}/v1/hooks/a` });
    expect(r.problems).toEqual([]);
    expect(r.acknowledged).toBeGreaterThan(0);
    expect(r.rate).toBe(r.acknowledged / r.seconds);
    expect(r.unanswered).toBeLessThanOrEqual(load.connections * load.pipelining);
  });

  it('refuses a run with non-2xx answers and names their status', async () => {
    const url = await serve((n) => (n % 5 === 0 ? 503 : 201));
    const r = await runLoad({ ...load, url: `${url}/v1/hooks/a` });
    expect(r.acknowledged).toBeGreaterThan(0);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(/non-2xx answer\(s\) \(503×\d+\)/);
  });

  it('refuses a run whose every request fails to connect', async () => {
    const url = await serve(() => 201);
    const port = new URL(url).port;
    await cleanups.pop()!(); // closed: nothing listens on the port now
    const r = await runLoad({ ...load, url: `http://127.0.0.1:${port}/v1/hooks/a` });
    expect(r.problems.join('; ')).toMatch(/request error\(s\).*no 2xx answer at all/);
  });

  it('litejobs stores every acknowledged hook: the store check passes on a real server and fails when one is missing', async () => {
    const db = tempDbPath();
    cleanups.push(db.cleanup);
    const queue = createQueue({ path: db.path, logger: silentLogger });
    const server = await startServer({ queue, port: 0, hooks: { stripe: {} } });
    const r = await runLoad({ ...load, url: `${server.url}/v1/hooks/stripe` });
    await server.close();
    await queue.close();
    const reader = new Database(db.path, { readonly: true });
    const stored = (reader.prepare("SELECT count(*) AS n FROM jobs WHERE name = 'stripe'").get() as { n: number }).n;
    reader.close();
    expect(r.problems).toEqual([]);
    expect(storedProblems(stored, r)).toEqual([]);
    expect(storedProblems(r.acknowledged - 1, r)[0]).toMatch(/^1 acknowledged job\(s\) missing/);
    expect(storedProblems(r.acknowledged + r.unanswered + 1, r)[0]).toMatch(/^1 job\(s\) stored that no request accounts for/);
  });

  it('a contender that failed in a later round loses the figures of its earlier rounds', () => {
    const rows: RowResult[] = [
      { label: 'floor', system: 'fastify', metrics: { rate: [100, 110] } },
      { label: 'litejobs-normal', system: 'litejobs', metrics: { rate: [90] }, error: 'Error: litejobs-normal: 3 non-2xx answer(s) (503×3)\n    at …' },
    ];
    expect(invalidateFailed(rows)).toEqual(['litejobs-normal is invalid in this run: Error: litejobs-normal: 3 non-2xx answer(s) (503×3)']);
    expect(rows.map((r) => r.metrics)).toEqual([{ rate: [100, 110] }, {}]);
  });
});
