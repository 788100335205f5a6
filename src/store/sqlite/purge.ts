/**
 * Deleting jobs (retention): the job rows, their steps, log lines and history, and two marks the
 * readers of the history rely on. Every delete is counted in `queue_meta`
 * (`deleted`), so the dashboard's counts, kept from the history, know when
 * rows went without a transition. And when the newest history rows go, a
 * tombstone keeps their highest id taken, so no new row gets an id a reader
 * has already read past (history-tombstone.sql).
 *
 * A job deleted by the move that finished it (retention 0) leaves its
 * outcome behind in `job_outcomes`, and its history stays: every `result()`
 * waiting for it, in any process, and every reader of the change feed still
 * learn how it ended. Both go together later (`trimOutcomes`).
 */
import type Database from 'better-sqlite3';
import type { TransitionRequest } from '../store.js';
import type { ErrorInfo } from '../../../machines/policy.js';
import { positional } from './positional.js';
import { sql } from './sql.js';
import { TRIM_WINDOW } from '../contract/job.js';

export interface Purge {
  /**
   * Deletes jobs inside the caller's transaction: `job` for retention 0 (the
   * job goes only if it is still at the version, state and lease the request names), `jobs` for jobs
   * finished long ago. The deletions are counted once, when the
   * transaction's deletes are done: `finish`.
   */
  begin(): PurgeRun;
  /** Forgets up to `limit` kept outcomes of jobs finished before `before`, with their history (inside the caller's transaction). */
  trimOutcomes(before: number, limit: number, at: number): number;
}

/** How a finishing move that deletes its job (retention 0) ended it: what its kept outcome holds. */
export interface FinishedAs {
  state: string;
  /** The result's JSON text; absent: the row's. */
  result?: string | null | undefined;
  lastError: ErrorInfo | null;
}

export interface PurgeRun {
  /**
   * True when the job went (a compare-and-set, as transition.sql's). `end`:
   * how it finished (retention 0), or `'finished'` to take that from the row
   * (a held job given back): its outcome is kept and its history stays
   * (trimmed with the outcome), and a job whose throttle window is still
   * open at `throttleAt` stays. Without it the job is a caller's delete,
   * which must leave nothing of the job behind.
   */
  job(t: Pick<TransitionRequest, 'id' | 'version' | 'from' | 'token' | 'at' | 'expiredBy' | 'throttleAt'>, end?: FinishedAs | 'finished'): boolean;
  jobs(ids: readonly number[], at: number): void;
  /** Deletes jobs finished as they are (retention 0 found them later), each keeping its outcome and its history, as `job(…, 'finished')` does. */
  finished(ids: readonly number[], at: number): void;
  /** Counts the transaction's deletions: one write, however many went. */
  finish(): void;
}

export function createPurge(db: Database.Database): Purge {
  const s = {
    purgeJob: db.prepare(sql('purge-job')),
    // On the hot path of a queue that deletes jobs as they finish: bound by position (positional.ts).
    keepOutcome: positional(db, sql('keep-outcome')),
    keepOutcomeOf: db.prepare(sql('keep-outcome-of')),
    deleteById: positional(db, sql('delete-job')),
    oldOutcomes: db.prepare(sql('outcomes-old')).pluck(),
    forgetOutcome: db.prepare(sql('outcome-forget')),
    deleteJob: db.prepare(sql('delete-job')),
    purgeSteps: db.prepare(sql('purge-steps')),
    purgeLogs: db.prepare(sql('purge-logs')),
    purgeHistory: db.prepare(sql('purge-history')),
    countDeleted: db.prepare(sql('count-deleted')),
    historyTop: db.prepare(sql('history-top')).pluck(),
    tombstone: db.prepare(sql('history-tombstone')),
    oldTombstones: db.prepare(sql('history-tombstones-old')),
  };

  /** Deletes a job's history; if its rows held the newest id, a tombstone keeps that id taken. */
  const history = (id: number, at: number) => {
    let newest = 0;
    for (const row of s.purgeHistory.all({ id }) as Array<{ id: number }>) newest = Math.max(newest, row.id);
    if (newest > 0 && (s.historyTop.get() as number) < newest) {
      s.tombstone.run({ id: newest, at });
      s.oldTombstones.run({ id: newest });
    }
  };

  return {
    begin() {
      let deleted = 0;
      return {
        job({ id, version, from, token, at, expiredBy, throttleAt }, end) {
          const cas = { id, version, from, token, expiredBy: expiredBy ?? null };
          if (end === undefined) {
            if (s.purgeJob.run(cas).changes !== 1) return false;
          } else {
            // The outcome is copied from the row under the compare-and-set; the row then goes by id alone.
            const as = end === 'finished' ? { state: null, result: null, lastError: null } : { state: end.state, result: end.result ?? null, lastError: end.lastError ? JSON.stringify(end.lastError) : null };
            if (s.keepOutcome.run({ ...cas, ...as, at, throttleAt: throttleAt ?? at }).changes !== 1) return false;
            s.deleteById.run({ id });
          }
          deleted++;
          // One probe of job_steps' primary key, and of job_logs': a job that took no steps and logged nothing costs no more.
          s.purgeSteps.run({ id });
          s.purgeLogs.run({ id });
          if (end === undefined) history(id, at);
          return true;
        },
        finished(ids) {
          for (const id of ids) {
            if (s.keepOutcomeOf.run({ id }).changes !== 1) continue;
            s.deleteJob.run({ id });
            s.purgeSteps.run({ id });
            s.purgeLogs.run({ id });
            deleted++;
          }
        },
        jobs(ids, at) {
          for (const id of ids) {
            s.deleteJob.run({ id });
            s.purgeSteps.run({ id });
            s.purgeLogs.run({ id });
            history(id, at);
          }
          deleted += ids.length;
        },
        finish() {
          if (deleted > 0) s.countDeleted.run({ n: deleted });
        },
      };
    },
    trimOutcomes(before, limit, at) {
      const ids = s.oldOutcomes.all({ before, limit, window: TRIM_WINDOW }) as number[];
      for (const id of ids) {
        history(id, at);
        s.forgetOutcome.run({ id });
      }
      return ids.length;
    },
  };
}
