/**
 * Inserts: a batch (or a job with a key, a unique guard or a group) in one
 * BEGIN IMMEDIATE transaction, and a lone keyless job as one autocommitted
 * statement (an awaited enqueue: one commit, nothing else).
 *
 * The same inserts run on the store's own connection and on an application's
 * connection (`createQueue({ database })`, `enqueueSync`): their statements are
 * prepared once per connection. Inside a transaction already open on the
 * connection, the batch transaction becomes a SAVEPOINT and the lone insert a
 * statement of that transaction: both then commit or roll back with it.
 */
import type Database from 'better-sqlite3';
import { copyEnqueued, type EnqueuedRow } from '../job-columns.js';
import type { InsertResult, NewJob } from '../store.js';
import { createInsertRows } from './insert-rows.js';
import { insertUnique, uniqueStatements } from './insert-unique.js';
import { newJobIndexer } from './index-new.js';
import { positional } from './positional.js';
import { sql } from './sql.js';

/** The values insert.sql, insert-keyless-at.sql and insert-unique.sql bind. */
type InsertRow = EnqueuedRow & { id: number | null; key: string | null; at: number };

export type SqliteInsert = (jobs: readonly NewJob[], at: number) => InsertResult[];

/** The inserts prepared on each connection, made on its first insert. */
const byConnection = new WeakMap<Database.Database, SqliteInsert>();

/** The inserts on this connection (the store's own or the application's), prepared once per connection. */
export function sqliteInsertOn(db: Database.Database): SqliteInsert {
  let insert = byConnection.get(db);
  if (!insert) {
    insert = createSqliteInsert(db);
    byConnection.set(db, insert);
  }
  return insert;
}

function createSqliteInsert(db: Database.Database): SqliteInsert {
  const indexNewJobs = newJobIndexer(db);
  const s = {
    // The hot statements bind positionally from their names (positional.ts).
    insert: positional(db, sql('insert')),
    insertKeylessAt: positional(db, sql('insert-keyless-at')),
    insertSingle: positional(db, sql('insert-single')),
    nextId: db.prepare(sql('next-id')),
    findByKey: db.prepare<{ key: string }, { id: number; state: string }>(sql('find-by-key')),
    unique: uniqueStatements(db),
    rows: createInsertRows(db),
  };
  /** A job that goes in with insert-keyless.sql's row: no key to look up, no unique guard. */
  const keyless = (job: NewJob) => job.key === null && !job.unique;

  const insertTx = db.transaction((jobs: readonly NewJob[], at: number): InsertResult[] => {
    const out: InsertResult[] = new Array(jobs.length);
    const { top, mark } = s.nextId.get() as { top: number; mark: number };
    // The first row inserted takes mark + 1 when deletes left the mark ahead of the newest id.
    let explicit: number | null = mark > top ? mark + 1 : null;
    // One row object for the batch, refilled per job (the statements copy its values as they bind).
    let row: InsertRow | undefined;
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      if (explicit === null && keyless(job)) {
        // A run of keyless jobs: many rows a statement, ids from the newest + 1 on (insert-rows.ts).
        let end = i + 1;
        while (end < jobs.length && keyless(jobs[end]!)) end++;
        // The newest id now (rows inserted before in this batch included): the run's first takes the next.
        const first = (s.nextId.get() as { top: number }).top + 1;
        s.rows(jobs, i, end, at, first);
        for (let k = i; k < end; k++) out[k] = { id: first + (k - i), created: true, state: jobs[k]!.state };
        i = end - 1;
        continue;
      }
      row = copyEnqueued(job, row ?? { id: null as number | null, key: null as string | null, at });
      row.id = explicit;
      row.key = job.key;
      if (job.unique) {
        // The writer lock is held: nothing else can take or give back the key meanwhile.
        const result = insertUnique(s.unique, row, job.unique);
        if (result.created) explicit = null;
        out[i] = result;
      } else if (job.key === null) {
        // The first row when the newest ids were deleted: it takes mark + 1 (next-id.sql).
        const { lastInsertRowid } = s.insertKeylessAt.run(row);
        out[i] = { id: Number(lastInsertRowid), created: true, state: job.state };
        explicit = null;
      } else {
        // An existing key hands back the first job (and uses no id).
        const inserted = s.insert.get(row) as { id: number } | undefined;
        if (inserted) explicit = null;
        out[i] = inserted ? { id: inserted.id, created: true, state: job.state } : { ...s.findByKey.get({ key: job.key })!, created: false };
      }
    }
    // This batch went into the index as it was written: move the mark past it,
    // so the next claim does not walk over these rows looking for new ones.
    indexNewJobs();
    return out;
  });

  /** One job without a key, committed by itself (an awaited enqueue): one autocommitted statement. */
  const insertSingle = (job: NewJob, at: number): InsertResult[] => {
    const { lastInsertRowid } = s.insertSingle.run(copyEnqueued(job, { at }));
    return [{ id: Number(lastInsertRowid), created: true, state: job.state }];
  };

  return (jobs, at) => (jobs.length === 1 && jobs[0]!.key === null && !jobs[0]!.unique && !jobs[0]!.group ? insertSingle(jobs[0]!, at) : insertTx.immediate(jobs, at));
}
