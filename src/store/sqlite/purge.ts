/**
 * Deleting jobs (retention): the job rows, their history, and two marks the
 * readers of the history rely on. Every delete is counted in `queue_meta`
 * (`deleted`), so the dashboard's counts, kept from the history, know when
 * rows went without a transition. And when the newest history rows go, a
 * tombstone keeps their highest id taken, so no new row gets an id a reader
 * has already read past (history-tombstone.sql).
 */
import type Database from 'better-sqlite3';
import { sql } from './sql.js';

export interface Purge {
  /** Retention 0: deletes the job if it is still `from` under `token`; true when it went. Inside the caller's transaction. */
  job(id: number, from: string, token: string | null, at: number): boolean;
  /** Deletes these jobs (finished long ago). Inside the caller's transaction. */
  jobs(ids: readonly number[], at: number): void;
}

export function createPurge(db: Database.Database, recordHistory: boolean): Purge {
  const s = {
    purgeJob: db.prepare(sql('purge-job')),
    deleteJob: db.prepare(sql('delete-job')),
    purgeHistory: db.prepare(sql('purge-history')),
    countDeleted: db.prepare(sql('count-deleted')),
    historyTop: db.prepare(sql('history-top')).pluck(),
    tombstone: db.prepare(sql('history-tombstone')),
    oldTombstones: db.prepare(sql('history-tombstones-old')),
  };

  /** Deletes the history of these jobs, leaving a tombstone if the newest row was among it. */
  const history = (ids: readonly number[], at: number) => {
    const top = s.historyTop.get() as number;
    for (const id of ids) s.purgeHistory.run({ id });
    if (top > 0 && (s.historyTop.get() as number) < top) {
      s.tombstone.run({ id: top, at });
      s.oldTombstones.run({ id: top });
    }
  };

  return {
    job(id, from, token, at) {
      if (s.purgeJob.run({ id, from, token }).changes !== 1) return false;
      s.countDeleted.run({ n: 1 });
      // A process that keeps no history skips it here (the hot path); purges by age below clear any other process's.
      if (recordHistory) history([id], at);
      return true;
    },
    jobs(ids, at) {
      if (ids.length === 0) return;
      for (const id of ids) s.deleteJob.run({ id });
      s.countDeleted.run({ n: ids.length });
      history(ids, at);
    },
  };
}
