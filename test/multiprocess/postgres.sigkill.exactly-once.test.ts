/**
 * Several real processes share one PostgreSQL schema; two of them are
 * SIGKILLed mid-run, one after the other. Every job must still end
 * `completed` exactly once, the killed processes' leases must come back
 * through lease expiry, and the history must show that no job was ever held
 * under two leases at once. All checks read the schema with SQL.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createQueue } from '../../src/index.js';
import { type Child, spawnChild } from '../helpers/child-process.js';
import { type HistoryRow, leaseViolations } from '../helpers/lease-history.js';
import { pgClient, pgUrl, usePgSchema } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';

const JOBS = 10_000;
const CHILDREN = 4;
/** test/fixtures/worker-process.ts leases for this long; renewals only push the end later. */
const FIXTURE_LEASE_MS = 1500;
/** Completions overall at which each victim (workers 0, 1, …) is killed: about a third, then two thirds. */
const KILL_AT = [3_300, 6_600];

/** Polls `probe` until it returns true; fails after `ms`. Bounded: never a fixed wait for an outcome. */
async function until(probe: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(25);
  }
}

interface TimedRow extends HistoryRow {
  at: number;
}

describe('several processes on one PostgreSQL schema, two of them SIGKILLed', () => {
  const newSchema = usePgSchema();

  it(
    'completes every job exactly once and recovers the killed processes’ leases through expiry',
    async () => {
      const started = Date.now();
      const schema = newSchema();
      const target = new URL(pgUrl());
      target.searchParams.set('schema', schema);

      // Enqueue from this process, in batches, before any worker exists (this also migrates the schema).
      const producer = createQueue({ connection: pgUrl(), schema, logger: silentLogger });
      for (let b = 0; b < JOBS; b += 1000) {
        await producer.enqueueMany(Array.from({ length: 1000 }, (_, i) => ({ name: 'work', payload: { n: b + i } })));
      }
      await producer.close();

      const workers = Array.from({ length: CHILDREN }, () => spawnChild(target.toString(), 'work'));
      const ready = await Promise.all(workers.map((w) => w.waitFor((m) => m.type === 'ready', 30_000)));
      const owners = ready.map((m) => String(m.owner));
      expect(new Set(owners).size).toBe(CHILDREN);

      const sql = await pgClient();
      try {
        const one = async (text: string, values: unknown[] = []) => Number(Object.values((await sql.query(text, values)).rows[0]!)[0]);
        const completed = () => one(`SELECT count(*) FROM "${schema}".jobs WHERE state = 'completed'`);
        const heldBy = (owner: string) => one(`SELECT count(*) FROM "${schema}".jobs WHERE state = 'processing' AND lease_owner = $1`, [owner]);

        // Let each victim do real work first, then kill it while it holds leases.
        const victims: { child: Child; owner: string; heldAtKill: number; completedAtKill: number }[] = [];
        for (const [v, threshold] of KILL_AT.entries()) {
          const child = workers[v]!;
          const owner = owners[v]!;
          await child.waitFor((m) => m.type === 'progress' && Number(m.completed) >= 200, 60_000);
          await until(async () => (await completed()) >= threshold, 60_000, `${threshold} completions`);
          await until(async () => (await heldBy(owner)) > 0, 10_000, `victim ${v} to hold a lease`);
          child.proc.kill('SIGKILL');
          expect((await child.exited).signal).toBe('SIGKILL');
          // Read after the exit: a claim the server had already received may still commit.
          const heldAtKill = await heldBy(owner);
          const completedAtKill = await completed();
          expect(completedAtKill).toBeLessThan(JOBS); // killed mid-run
          victims.push({ child, owner, heldAtKill, completedAtKill });
        }

        // The survivors finish everything, the victims' leased jobs included.
        await until(async () => (await completed()) === JOBS, 60_000, `all ${JOBS} jobs completed`);
        const survivors = workers.slice(KILL_AT.length);
        for (const s of survivors) s.proc.kill('SIGTERM');
        // A clean end: queue.close() resolved (the `closed` line), no error, nothing on stderr.
        for (const s of survivors) {
          const exit = await s.exited;
          expect({ code: exit.code, stderr: s.stderr.join('') }).toEqual({ code: 0, stderr: '' });
          expect(s.messages.some((m) => m.type === 'closed')).toBe(true);
        }

        // Everything below reads the schema after every worker has exited.
        const states = (await sql.query(`SELECT state, count(*)::int AS n FROM "${schema}".jobs GROUP BY state`)).rows;
        expect(states).toEqual([{ state: 'completed', n: JOBS }]);
        expect(await one(`SELECT count(*) FROM "${schema}".jobs WHERE lease_token IS NOT NULL OR lease_owner IS NOT NULL OR locked_until IS NOT NULL`)).toBe(0);

        // Exactly one job.complete per job, and it left processing for completed.
        const completions = (
          await sql.query<{ n: number; from_state: string | null; to_state: string | null }>(
            `SELECT count(h.id)::int AS n, min(h.from_state) AS from_state, min(h.to_state) AS to_state
             FROM "${schema}".jobs j LEFT JOIN "${schema}".job_history h ON h.job_id = j.id AND h.event = 'job.complete'
             GROUP BY j.id`,
          )
        ).rows;
        expect(completions.length).toBe(JOBS);
        expect(completions.filter((c) => c.n !== 1 || c.from_state !== 'processing' || c.to_state !== 'completed')).toEqual([]);

        // No job was ever held under two leases at once. History ids follow each
        // job's own order: every row is written while its job's row is locked.
        const rows = (
          await sql.query<TimedRow>(
            `SELECT id::int AS id, job_id::int AS job_id, from_state, to_state, event, worker_id, lease_token, at::float8 AS at
             FROM "${schema}".job_history ORDER BY id`,
          )
        ).rows;
        expect(leaseViolations(rows)).toEqual([]);

        // Each victim really worked and really held leases when it died, and each
        // of those leases came back through expiry, after the lease ran out, then
        // went to another process.
        const exitOf = new Map<string, TimedRow>();
        for (const r of rows) if (r.from_state === 'processing') exitOf.set(`${r.job_id}|${r.lease_token}`, r);
        const orphanedJobs = new Set<number>();
        const report: string[] = [];
        for (const victim of victims) {
          // Claims name the process; settlements name one of its workers (`owner/wN`).
          const by = (r: HistoryRow) => r.worker_id === victim.owner || (r.worker_id ?? '').startsWith(`${victim.owner}/`);
          const victimCompleted = rows.filter((r) => r.event === 'job.complete' && by(r)).length;
          expect(victimCompleted).toBeGreaterThan(0);
          const orphaned = rows.filter((r) => {
            if (r.event !== 'job.claim' || !by(r)) return false;
            const exit = exitOf.get(`${r.job_id}|${r.lease_token}`);
            return !exit || !by(exit);
          });
          expect(orphaned.length).toBeGreaterThan(0); // leases the victim held when it was killed
          for (const claim of orphaned) {
            const exit = exitOf.get(`${claim.job_id}|${claim.lease_token}`);
            expect(exit, `job ${claim.job_id}`).toMatchObject({ event: 'job.expire', to_state: 'failed', worker_id: null });
            expect(exit!.at - claim.at, `job ${claim.job_id}: expired before its lease ran out`).toBeGreaterThanOrEqual(FIXTURE_LEASE_MS);
            const later = rows.filter((r) => r.job_id === claim.job_id && r.id > exit!.id);
            expect(later.map((r) => r.event), `job ${claim.job_id}`).toEqual(expect.arrayContaining(['job.claim', 'job.complete']));
            expect(by(later.find((r) => r.event === 'job.complete')!), `job ${claim.job_id}`).toBe(false);
            orphanedJobs.add(claim.job_id);
          }
          report.push(
            `victim ${victim.owner} completed ${victimCompleted}, ${orphaned.length} of its leases expired ` +
              `(${victim.heldAtKill} held at the kill, ${victim.completedAtKill} completed overall then)`,
          );
        }
        const reclaimed = await one(`SELECT count(*) FROM "${schema}".jobs WHERE id = ANY($1::bigint[]) AND attempts >= 2`, [[...orphanedJobs]]);
        expect(reclaimed).toBe(orphanedJobs.size);

        // Victims and survivors together account for the work.
        const perOwner = owners.map((o) => rows.filter((r) => r.event === 'job.complete' && (r.worker_id ?? '').startsWith(`${o}/`)).length);
        expect(perOwner.reduce((a, b) => a + b, 0)).toBe(JOBS);
        const expiries = rows.filter((r) => r.event === 'job.expire').length;
        console.info(
          `[pg sigkill] ${JOBS} jobs, ${CHILDREN} processes, ${victims.length} killed; ${report.join('; ')}; ` +
            `${reclaimed} jobs re-claimed after expiry; ${expiries} expiries in all; per process ${perOwner.join('/')}; ` +
            `${Date.now() - started} ms`,
        );
      } finally {
        await sql.end();
      }
    },
    120_000,
  );
});
