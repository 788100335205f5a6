/**
 * Deleting jobs on a caller's word (queue.remove, queue.clean), the
 * counterpart of the SQLite store's remove.ts: each statement deletes the
 * jobs with their steps, log lines and history and counts them (queue_meta `deleted`).
 * A removed job goes only while it is still at the version and state it was
 * read in and holds no lease; a clean locks the rows it takes (SKIP LOCKED:
 * a claim holding one keeps it), and PostgreSQL checks each row's state
 * again once it holds the lock.
 */
import type { CleanFilter, RemoveTarget } from '../store.js';
import { FINISHED_STATES } from '../../../machines/job.machine.js';
import type { Database } from './connect.js';
import { render } from './sql.js';

/** The deletes that follow the jobs' own: their history, steps and log lines go, and the deletion is counted. */
const AFTER_GONE = `gone_history AS (DELETE FROM {{schema}}.job_history WHERE job_id IN (SELECT id FROM gone)),
  gone_steps AS (DELETE FROM {{schema}}.job_steps WHERE job_id IN (SELECT id FROM gone)),
  gone_logs AS (DELETE FROM {{schema}}.job_logs WHERE job_id IN (SELECT id FROM gone)),
  counted AS (
    UPDATE {{schema}}.queue_meta SET value = value + (SELECT count(*) FROM gone) WHERE key = 'deleted' AND EXISTS (SELECT 1 FROM gone)
  )`;

export interface PostgresRemoval {
  removeJobs(targets: readonly RemoveTarget[]): Promise<boolean[]>;
  cleanJobs(filter: CleanFilter): Promise<number>;
}

export function createPostgresRemoval(schema: string, db: Pick<Database, 'rows' | 'tx'>): PostgresRemoval {
  const { rows } = db;
  const remove = render(
    `WITH r AS (SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[]) AS r (id, version, state)),
     gone AS (
       DELETE FROM {{schema}}.jobs j USING r
       WHERE j.id = r.id AND j.version = r.version AND j.state = r.state AND j.lease_token IS NULL
       RETURNING j.id
     ),
     ${AFTER_GONE}
     SELECT id FROM gone`,
    schema,
  );
  // $5: a finished state, whose flow children may go (their parents counted them when they finished).
  const clean = render(
    `WITH gone AS (
       DELETE FROM {{schema}}.jobs WHERE id IN (
         SELECT id FROM {{schema}}.jobs
         WHERE state = $1 AND updated_at <= $2 AND ($4::text IS NULL OR name = $4)
           AND lease_token IS NULL AND ($5::boolean OR parent_id IS NULL)
         LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING id
     ),
     ${AFTER_GONE}
     SELECT count(*)::int AS n FROM gone`,
    schema,
  );
  // A second look, in a statement of its own: a remove that waited on an append's lock on the job row
  // deletes it once the append commits, but its own gone_logs reads the snapshot taken before that.
  const lateLogs = render('DELETE FROM {{schema}}.job_logs WHERE job_id = ANY($1::bigint[])', schema);
  return {
    async removeJobs(targets) {
      const gone = await db.tx(async (client) => {
        const removed = (await client.query<{ id: string | number }>(remove, [targets.map((t) => t.id), targets.map((t) => t.version), targets.map((t) => t.state)])).rows;
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
