/**
 * Deleting jobs (retention): the job rows, their steps, log lines and history, and two marks the
 * readers of the history rely on. Every delete is counted in `queue_meta`
 * (`deleted`), so the dashboard's counts, kept from the history, know when
 * rows went without a transition. And when the newest history rows go, a
 * tombstone keeps their highest id taken, so no new row gets an id a reader
 * has already read past (history-tombstone.sql).
 */
import type Database from 'better-sqlite3';
import type { TransitionRequest } from '../store.js';
import { sql } from './sql.js';

export interface Purge {
  /**
   * Deletes jobs inside the caller's transaction: `job` for retention 0 (the
   * job goes only if it is still at the version, state and lease the request names), `jobs` for jobs
   * finished long ago. The deletions are counted once, when the
   * transaction's deletes are done: `finish`.
   */
  begin(): PurgeRun;
}

export interface PurgeRun {
  /**
   * True when the job went (a compare-and-set, as transition.sql's). Its
   * history goes with it when this process keeps history, or `always`
   * (a caller's delete, which must leave nothing of the job behind).
   */
  job(t: Pick<TransitionRequest, 'id' | 'version' | 'from' | 'token' | 'at' | 'expiredBy'>, always?: boolean): boolean;
  jobs(ids: readonly number[], at: number): void;
  /** Counts the transaction's deletions: one write, however many went. */
  finish(): void;
}

export function createPurge(db: Database.Database, recordHistory: boolean): Purge {
  const s = {
    purgeJob: db.prepare(sql('purge-job')),
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
        job({ id, version, from, token, at, expiredBy }, always = false) {
          if (s.purgeJob.run({ id, version, from, token, expiredBy: expiredBy ?? null }).changes !== 1) return false;
          deleted++;
          // One probe of job_steps' primary key, and of job_logs': a job that took no steps and logged nothing costs no more.
          s.purgeSteps.run({ id });
          s.purgeLogs.run({ id });
          // A process that keeps no history skips it here (the hot path); purges by age clear any other process's.
          if (recordHistory || always) history(id, at);
          return true;
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
  };
}
