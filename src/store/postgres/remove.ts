/**
 * Deleting jobs on a caller's word (queue.remove, queue.clean), the
 * counterpart of the SQLite store's remove.ts: each statement (sql/remove-jobs.sql,
 * sql/clean-jobs.sql) deletes the
 * jobs with their steps, log lines and history and counts them (queue_meta `deleted`).
 * A removed job goes only while it is still at the version and state it was
 * read in and holds no lease; a clean locks the rows it takes (SKIP LOCKED:
 * a claim holding one keeps it), and PostgreSQL checks each row's state
 * again once it holds the lock.
 */
import type { CleanFilter, RemoveTarget } from '../store.js';
import { FINISHED_STATES } from '../../../machines/job.machine.js';
import type { Database } from './open.js';
import { statement } from './sql.js';

export interface PostgresRemoval {
  removeJobs(targets: readonly RemoveTarget[]): Promise<boolean[]>;
  cleanJobs(filter: CleanFilter): Promise<number>;
}

/** The database time the finished targets' throttle windows are judged at (remove-jobs.sql $5): one for the call. */
const throttleAt = (targets: readonly RemoveTarget[]): number | null => targets.find((t) => t.finished === true && t.throttleAt !== undefined)?.throttleAt ?? null;

export function createPostgresRemoval(schema: string, db: Pick<Database, 'rows' | 'tx'>): PostgresRemoval {
  const { rows } = db;
  const remove = statement('remove-jobs', schema);
  const clean = statement('clean-jobs', schema);
  // A second look, in a statement of its own: a remove that waited on an append's lock on the job row
  // deletes it once the append commits, but its own gone_logs reads the snapshot taken before that.
  const lateLogs = statement('purge-logs', schema);
  return {
    async removeJobs(targets) {
      const gone = await db.tx(async (client) => {
        const removed = (await client.query<{ id: string | number }>(remove, [targets.map((t) => t.id), targets.map((t) => t.version), targets.map((t) => t.state), targets.map((t) => t.finished === true), throttleAt(targets)])).rows;
        if (removed.length > 0) await client.query(lateLogs, [removed.map((r) => r.id)]);
        return removed;
      });
      const ids = new Set(gone.map((r) => Number(r.id)));
      return targets.map((t) => ids.has(t.id));
    },
    async cleanJobs(filter) {
      const [row] = await rows<{ n: number }>(clean, [filter.state, filter.before, filter.limit, filter.name ?? null, FINISHED_STATES.includes(filter.state)]);
      return row!.n;
    },
  };
}
