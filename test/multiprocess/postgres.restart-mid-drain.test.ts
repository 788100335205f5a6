/**
 * Worker processes drain a few thousand jobs from one PostgreSQL schema while
 * the server itself is restarted under them, twice with an immediate stop
 * (every backend killed, transactions cut off mid-flight, crash recovery on
 * start) and once with a fast one (every session ended with 57P01). The
 * server is a throwaway one of this test's own (test/helpers/pg-instance.ts).
 *
 * Every job must end completed exactly once, nothing may be left pending or
 * processing, and each job's handler must have run exactly once, as the
 * handlers' own side logs tell. No allowance is needed: the workers' lease
 * (20 s) is far longer than any outage here (checked), so no lease runs out
 * while its worker waits for the server, and an outcome reached during an
 * outage is written once the server is back; one whose reply was lost is
 * recognised as written. A claim whose reply was lost is taken back by its
 * lease token at the worker's next claim, so no lease runs out there either:
 * no job is expired at all (checked).
 *
 * The workers must live through it all and say so in warnings, not die, and
 * stop cleanly when asked.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueue } from '../../src/index.js';
import { spawnFixture, type Child } from '../helpers/child-process.js';
import { type HistoryRow, leaseViolations } from '../helpers/lease-history.js';
import { type PgInstance, startPgInstance } from '../helpers/pg-instance.js';
import { silentLogger } from '../helpers/silent-logger.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/pg-restart-worker.ts', import.meta.url));
/** test/fixtures/pg-restart-worker.ts leases for this long. */
const FIXTURE_LEASE_MS = 20_000;
const JOBS = 3000;
const CHILDREN = 3;
const SCHEMA = 'lj_test_restart';
/** Completions at which the server is restarted, how, and how long it stays down. */
const RESTARTS = [
  { at: 600, mode: 'immediate', downMs: 1000 },
  { at: 1400, mode: 'fast', downMs: 500 },
  { at: 2200, mode: 'immediate', downMs: 0 },
] as const;

interface Pool {
  query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  on(event: 'error', listener: () => void): void;
  end(): Promise<void>;
}
const pg = createRequire(import.meta.url)('pg') as { Pool: new (o: { connectionString: string; max: number }) => Pool };

let server: PgInstance;
let dir: string;
beforeAll(async () => {
  server = await startPgInstance();
  dir = mkdtempSync(join(tmpdir(), 'litejobs-restart-'));
}, 60_000);
afterAll(() => {
  server?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Pino lines a child wrote on stderr. */
function logLines(child: Child): Array<{ level: number; msg: string; loop?: string }> {
  return child.stderr
    .join('')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => {
      try {
        return JSON.parse(l) as { level: number; msg: string; loop?: string };
      } catch {
        return { level: 60, msg: l }; // not pino's: a crash trace
      }
    });
}

describe('worker processes on PostgreSQL while the server restarts', () => {
  it(
    'drain every job exactly once through immediate and fast restarts, and live through them',
    async () => {
      const started = Date.now();
      const target = new URL(server.url);
      target.searchParams.set('schema', SCHEMA);

      const producer = createQueue({ connection: server.url, schema: SCHEMA, logger: silentLogger });
      for (let b = 0; b < JOBS; b += 1000) {
        await producer.enqueueMany(Array.from({ length: 1000 }, (_, i) => ({ name: 'work', payload: { n: b + i } })));
      }
      await producer.close();

      const logs = Array.from({ length: CHILDREN }, (_, i) => join(dir, `runs-${i}.log`));
      const workers = logs.map((log) => spawnFixture(FIXTURE, target.toString(), log));
      await Promise.all(workers.map((w) => w.waitFor((m) => m.type === 'ready', 30_000)));

      // The test's own connection: its sessions die at each restart too, and it asks again.
      const sql = new pg.Pool({ connectionString: server.url, max: 1 });
      sql.on('error', () => undefined);
      const completed = async (): Promise<number> => {
        try {
          const { rows } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${SCHEMA}".jobs WHERE state = 'completed'`);
          return rows[0]!.n;
        } catch {
          return -1; // the server is restarting
        }
      };
      const until = async (probe: () => Promise<boolean>, ms: number, what: string) => {
        const deadline = Date.now() + ms;
        while (!(await probe())) {
          const dead = workers.find((w) => w.proc.exitCode !== null || w.proc.signalCode !== null);
          if (dead) throw new Error(`worker ${dead.proc.pid} died while waiting for ${what}:\n${dead.stderr.join('').slice(-3000)}`);
          if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}; server log:\n${server.log().slice(-3000)}`);
          await sleep(25);
        }
      };

      try {
        const outages: number[] = [];
        for (const r of RESTARTS) {
          await until(async () => (await completed()) >= r.at, 90_000, `${r.at} completions`);
          const down = Date.now();
          await server.restart({ mode: r.mode, downMs: r.downMs });
          outages.push(Date.now() - down);
          expect(await completed(), 'restarted mid-drain').toBeLessThan(JOBS);
        }
        // The test holds only if no lease could run out while its worker waited for the server.
        for (const ms of outages) expect(ms, 'an outage shorter than half the lease').toBeLessThan(FIXTURE_LEASE_MS / 2);

        await until(async () => (await completed()) === JOBS, 120_000, `all ${JOBS} jobs completed`);

        // Alive after it all, and a clean stop when asked.
        for (const w of workers) expect({ exitCode: w.proc.exitCode, signal: w.proc.signalCode }).toEqual({ exitCode: null, signal: null });
        for (const w of workers) w.proc.kill('SIGTERM');
        for (const w of workers) {
          expect((await w.exited).code, w.stderr.join('')).toBe(0);
          expect(w.messages.some((m) => m.type === 'closed')).toBe(true);
        }
        // Each worker met the outages and said so in warnings; none logged an error.
        for (const w of workers) {
          const lines = logLines(w);
          expect(lines.filter((l) => l.level >= 50)).toEqual([]);
          expect(lines.some((l) => l.level === 40 && l.msg.includes('the database is unavailable; reconnecting with backoff'))).toBe(true);
        }

        // The store: every job completed, none held, one completion each, never two leases at once.
        const states = (await sql.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM "${SCHEMA}".jobs GROUP BY state`)).rows;
        expect(states).toEqual([{ state: 'completed', n: JOBS }]);
        const held = await sql.query(`SELECT id FROM "${SCHEMA}".jobs WHERE lease_token IS NOT NULL OR lease_owner IS NOT NULL OR locked_until IS NOT NULL`);
        expect(held.rows).toEqual([]);
        const completions = (
          await sql.query<{ id: number; n: number }>(
            `SELECT j.id::int AS id, count(h.id)::int AS n FROM "${SCHEMA}".jobs j
             LEFT JOIN "${SCHEMA}".job_history h ON h.job_id = j.id AND h.event = 'job.complete' GROUP BY j.id`,
          )
        ).rows;
        expect(completions.filter((c) => c.n !== 1)).toEqual([]);
        const rows = (
          await sql.query<HistoryRow>(
            `SELECT id::int AS id, job_id::int AS job_id, from_state, to_state, event, worker_id, lease_token FROM "${SCHEMA}".job_history ORDER BY id`,
          )
        ).rows;
        expect(leaseViolations(rows)).toEqual([]);

        // The handlers' own word: each job ran exactly once, across every process.
        const runs = new Map<number, number>();
        for (const log of logs) {
          for (const line of readFileSync(log, 'utf8').split('\n')) if (line) runs.set(Number(line), (runs.get(Number(line)) ?? 0) + 1);
        }
        expect(runs.size).toBe(JOBS);
        expect([...runs].filter(([, n]) => n !== 1)).toEqual([]);

        const expired = rows.filter((r) => r.event === 'job.expire').length;
        expect(expired, 'leases that ran out').toBe(0);
        const perWorker = logs.map((log) => readFileSync(log, 'utf8').split('\n').filter(Boolean).length);
        const warnings = workers.map((w) => logLines(w).filter((l) => l.level === 40).length);
        console.info(
          `[pg restart] ${JOBS} jobs, ${CHILDREN} processes, restarts ${RESTARTS.map((r, i) => `${r.mode} ${outages[i]} ms`).join(', ')}; ` +
            `runs per process ${perWorker.join('/')}; warnings ${warnings.join('/')}; ${Date.now() - started} ms`,
        );
      } finally {
        await sql.end();
      }
    },
    240_000,
  );
});
