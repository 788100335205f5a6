/**
 * Deleting jobs on a caller's word (queue.remove, queue.clean): the rows,
 * their steps, log lines and history, in one IMMEDIATE transaction, counted like
 * retention's deletes (purge.ts). A job is removed only while it is still at
 * the version it was read at and holds no lease: one that moved on meanwhile
 * (claimed by another process, say) stays, and the caller decides again.
 */
import type Database from 'better-sqlite3';
import { FINISHED_STATES } from '../../../machines/job.machine.js';
import type { CleanFilter, RemoveTarget } from '../store.js';
import type { Purge } from './purge.js';
import { sql } from './sql.js';

export interface SqliteRemoval {
  removeJobs(targets: readonly RemoveTarget[], at: number): boolean[];
  cleanJobs(filter: CleanFilter, at: number): number;
}

export function createSqliteRemoval(
  db: Database.Database,
  o: { purge: Purge; indexNewJobs: () => void; finishedIndex: () => void },
): SqliteRemoval {
  const waiting = db.prepare(sql('clean-waiting')).pluck();
  let finished: Database.Statement | undefined;

  const removeTx = db.transaction((targets: readonly RemoveTarget[], at: number) => {
    // Moves the id mark past every job first: a deleted newest job's id is never handed out again.
    o.indexNewJobs();
    const run = o.purge.begin();
    const out = targets.map((t) => run.job({ id: t.id, version: t.version, from: t.state, token: null, at, ...(t.throttleAt === undefined ? {} : { throttleAt: t.throttleAt }) }, t.finished === true ? 'finished' : undefined));
    run.finish();
    return out;
  });

  const cleanTx = db.transaction((find: Database.Statement, filter: CleanFilter, at: number) => {
    o.indexNewJobs();
    const ids = find.all({ state: filter.state, name: filter.name ?? null, before: filter.before, limit: filter.limit }) as number[];
    const run = o.purge.begin();
    run.jobs(ids, at);
    run.finish();
    return ids.length;
  });

  return {
    removeJobs: (targets, at) => removeTx.immediate(targets, at),
    cleanJobs: (filter, at) => {
      if (!FINISHED_STATES.includes(filter.state)) return cleanTx.immediate(waiting, filter, at);
      // Finished jobs are found by age along the retention index, built (outside the write) on first use.
      if (!finished) {
        o.finishedIndex();
        finished = db.prepare(sql('clean-finished')).pluck();
      }
      return cleanTx.immediate(finished, filter, at);
    },
  };
}
