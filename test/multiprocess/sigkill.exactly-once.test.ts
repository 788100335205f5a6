/**
 * Several real processes share one SQLite file; one is SIGKILLed mid-run.
 * Every job must still end `completed` exactly once, the killed process's
 * leases must come back through lease expiry, and the history must show that
 * no job was ever held under two leases at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createQueue } from '../../src/index.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { spawnChild } from '../helpers/child-process.js';
import { type HistoryRow, leaseViolations } from '../helpers/lease-history.js';
import { tempDbPath } from '../helpers/temp-db.js';

const JOBS = 20_000;
const CHILDREN = 3;


/** Polls `probe` until it returns true; fails after `ms`. Bounded: never a fixed wait for an outcome. */
async function until(probe: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

describe('several processes on one file, one of them SIGKILLed', () => {
  it(
    'completes every job exactly once and recovers the killed process’s leases through expiry',
    async () => {
      const started = Date.now();
      const db = tempDbPath();
      try {
        // Enqueue from this process, in batches, before any worker exists.
        const producer = createQueue({ path: db.path, logger: silentLogger });
        for (let b = 0; b < JOBS; b += 1000) {
          await producer.enqueueMany(Array.from({ length: 1000 }, (_, i) => ({ name: 'work', payload: { n: b + i } })));
        }
        await producer.close();

        const workers = Array.from({ length: CHILDREN }, () => spawnChild(db.path, 'work'));
        const ready = await Promise.all(workers.map((w) => w.waitFor((m) => m.type === 'ready', 30_000)));
        const owners = ready.map((m) => String(m.owner));
        expect(new Set(owners).size).toBe(CHILDREN);

        const reader = new Database(db.path, { readonly: true, fileMustExist: true });
        const count = reader.prepare<[string], number>('SELECT count(*) FROM jobs WHERE state = ?').pluck();
        const heldBy = reader
          .prepare<[string], number>("SELECT count(*) FROM jobs WHERE state = 'processing' AND lease_owner = ?")
          .pluck();

        // Let the victim do real work first, then kill it while it holds leases.
        const victim = workers[0]!;
        const victimOwner = owners[0]!;
        await victim.waitFor((m) => m.type === 'progress' && Number(m.completed) >= 500, 60_000);
        await until(() => count.get('completed')! >= 2000, 60_000, '2000 completions');
        await until(() => heldBy.get(victimOwner)! > 0, 10_000, 'the victim to hold a lease');
        victim.proc.kill('SIGKILL');
        const heldAtKill = heldBy.get(victimOwner)!;
        const victimExit = await victim.exited;
        expect(victimExit.signal).toBe('SIGKILL');
        const completedAtKill = count.get('completed')!;
        expect(completedAtKill).toBeLessThan(JOBS); // killed mid-run

        // The survivors finish everything, the victim's leased jobs included.
        await until(() => count.get('completed')! === JOBS, 90_000, `all ${JOBS} jobs completed`);
        const survivors = workers.slice(1);
        for (const s of survivors) s.proc.kill('SIGTERM');
        for (const s of survivors) {
          const exit = await s.exited;
          expect({ code: exit.code, stderr: s.stderr.join('') }).toEqual({ code: 0, stderr: '' });
          expect(s.messages.some((m) => m.type === 'closed')).toBe(true);
        }
        reader.close();

        // Everything below reads the file after every writer has exited.
        const file = new Database(db.path, { readonly: true, fileMustExist: true });
        try {
          const states = file.prepare('SELECT state, count(*) AS n FROM jobs GROUP BY state').all();
          expect(states).toEqual([{ state: 'completed', n: JOBS }]);
          expect(file.prepare('SELECT count(*) FROM jobs WHERE lease_token IS NOT NULL OR lease_owner IS NOT NULL').pluck().get()).toBe(0);

          // Exactly one processing → completed per job.
          const completions = file
            .prepare<[], { job_id: number; n: number }>(
              "SELECT job_id, count(*) AS n FROM job_history WHERE from_state = 'processing' AND to_state = 'completed' GROUP BY job_id",
            )
            .all();
          expect(completions.length).toBe(JOBS);
          expect(completions.filter((c) => c.n !== 1)).toEqual([]);

          // No job was ever held under two leases at once.
          const rows = file
            .prepare<[], HistoryRow>('SELECT id, job_id, from_state, to_state, event, worker_id, lease_token FROM job_history ORDER BY id')
            .all();
          expect(leaseViolations(rows)).toEqual([]);

          // The victim really worked and really held leases when it died, and each
          // of those leases came back through expiry, then a retry by a survivor.
          const byVictim = (r: HistoryRow) => r.worker_id === victimOwner || (r.worker_id ?? '').startsWith(`${victimOwner}/`);
          const victimCompleted = rows.filter((r) => r.event === 'job.complete' && byVictim(r)).length;
          expect(victimCompleted).toBeGreaterThan(0);
          const victimClaims = rows.filter((r) => r.event === 'job.claim' && byVictim(r));
          const exitOf = new Map<string, HistoryRow>();
          for (const r of rows) if (r.from_state === 'processing') exitOf.set(`${r.job_id}|${r.lease_token}`, r);
          const orphaned = victimClaims.filter((c) => {
            const exit = exitOf.get(`${c.job_id}|${c.lease_token}`);
            return !exit || !byVictim(exit);
          });
          expect(orphaned.length).toBeGreaterThan(0); // leases the victim held when it was killed
          for (const claim of orphaned) {
            const exit = exitOf.get(`${claim.job_id}|${claim.lease_token}`);
            expect(exit, `job ${claim.job_id}`).toMatchObject({ event: 'job.expire', to_state: 'failed', worker_id: null });
            const later = rows.filter((r) => r.job_id === claim.job_id && r.id > exit!.id);
            expect(later.map((r) => r.event), `job ${claim.job_id}`).toEqual(expect.arrayContaining(['job.claim', 'job.complete']));
            expect(later.find((r) => r.event === 'job.complete')!.worker_id).not.toMatch(victimOwner);
          }
          const retried = file
            .prepare<[string], number>('SELECT count(*) FROM jobs WHERE id IN (SELECT value FROM json_each(?)) AND attempts >= 2')
            .pluck()
            .get(JSON.stringify(orphaned.map((c) => c.job_id)));
          expect(retried).toBe(new Set(orphaned.map((c) => c.job_id)).size);

          // Survivors and victim together account for the work.
          const perOwner = owners.map((o) => rows.filter((r) => r.event === 'job.complete' && (r.worker_id ?? '').startsWith(`${o}/`)).length);
          expect(perOwner.reduce((a, b) => a + b, 0)).toBe(JOBS);
          const expiries = rows.filter((r) => r.event === 'job.expire');
          console.info(
            `[sigkill] ${JOBS} jobs, ${CHILDREN} processes; victim completed ${victimCompleted}, ${orphaned.length} of its leases expired ` +
              `(${heldAtKill} held at the kill); ${expiries.length - orphaned.length} leases of live processes expired too; ` +
              `(${completedAtKill} completed overall then); per process ${perOwner.join('/')}; ` +
              `${Date.now() - started} ms`,
          );
        } finally {
          file.close();
        }
      } finally {
        db.cleanup();
      }
    },
    120_000,
  );
});
