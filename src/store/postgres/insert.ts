/**
 * insert(): a batch of jobs in one transaction and one multi-row INSERT (its
 * columns bound as arrays and unnested). A key already taken inserts nothing
 * and hands back the first job with that key, with its state as it is now; a
 * key repeated within the batch does the same for its later occurrences.
 */
import { DatabaseError } from '../../errors.js';
import { enqueuedArrays } from '../job-column-sql.js';
import type { InsertResult, NewJob } from '../store.js';
import type { Queryable } from './driver.js';
import { insertUnique, uniqueStatements, type UniqueStatements } from './insert-unique.js';
import { statement } from './sql.js';

export interface InsertStatements {
  insert: string;
  unique: UniqueStatements;
  /** `insert`, and a NOTIFY on channel $3 with payload $4, sent once if it inserted a row (delivered at its commit). */
  insertNotify: string;
  byKeys: string;
}

export function insertStatements(schema: string): InsertStatements {
  return {
    insert: statement('insert', schema),
    unique: uniqueStatements(schema),
    insertNotify: statement('insert-notify', schema),
    byKeys: statement('insert-by-keys', schema),
  };
}

/** The keys, as insert.sql binds them ($2). */
const keysOf = (jobs: readonly NewJob[]) => jobs.map((j) => j.key);

/**
 * Inserts jobs none of which has a key, so none can conflict: one statement,
 * autocommitted, that also sends the wake-up NOTIFY. One round trip, where
 * BEGIN, INSERT, NOTIFY and COMMIT took four. Results in input order.
 */
export async function insertUnkeyed(db: Queryable, s: InsertStatements, jobs: readonly NewJob[], at: number, channel: string, payload: string): Promise<InsertResult[]> {
  const inserted = await db.query<{ id: number | string }>(s.insertNotify, [at, keysOf(jobs), channel, payload, ...enqueuedArrays(jobs)]);
  const ids = inserted.rows.map((r) => Number(r.id)).sort((x, y) => x - y);
  if (ids.length !== jobs.length) throw new DatabaseError('LJ_ERR_DATABASE', `insert: ${ids.length} of ${jobs.length} jobs without keys were written`);
  return jobs.map((job, i) => ({ id: ids[i]!, created: true, state: job.state }));
}

/** Inserts `jobs` inside the caller's transaction; results in input order. */
export async function insertJobs(client: Queryable, s: InsertStatements, jobs: readonly NewJob[], at: number): Promise<InsertResult[]> {
  if (jobs.some((j) => j.unique)) {
    // Job by job, in order: each sees the keys the ones before it took (a batch's first wins).
    const out: InsertResult[] = [];
    for (const job of jobs) out.push(job.unique ? await insertUnique(client, s.unique, job, job.unique, at) : (await insertJobs(client, s, [job], at))[0]!);
    return out;
  }
  const out: Array<InsertResult | undefined> = new Array(jobs.length);
  /** The first occurrence of each key in the batch; later ones are answered from it. */
  const firstOfKey = new Map<string, number>();
  const rows: number[] = [];
  jobs.forEach((job, i) => {
    if (job.key !== null) {
      if (firstOfKey.has(job.key)) return;
      firstOfKey.set(job.key, i);
    }
    rows.push(i);
  });
  const batch = rows.map((i) => jobs[i]!);
  const inserted = await client.query<{ id: number | string; key: string | null }>(s.insert, [at, keysOf(batch), ...enqueuedArrays(batch)]);
  const createdKeys = new Set<string>();
  for (const r of inserted.rows) if (r.key !== null) createdKeys.add(r.key);
  const created = rows.filter((i) => jobs[i]!.key === null || createdKeys.has(jobs[i]!.key!));
  // Number(): a caller's own client (transactional enqueue) reads int8 as text.
  const ids = inserted.rows.map((r) => Number(r.id)).sort((x, y) => x - y);
  created.forEach((i, n) => {
    out[i] = { id: ids[n]!, created: true, state: jobs[i]!.state };
  });

  const taken = rows.filter((i) => out[i] === undefined).map((i) => jobs[i]!.key!);
  if (taken.length > 0) {
    const found = await client.query<{ id: number | string; key: string; state: string }>(s.byKeys, [taken]);
    for (const r of found.rows) out[firstOfKey.get(r.key)!] = { id: Number(r.id), created: false, state: r.state };
  }
  // Later occurrences of a key: the first job, as the batch left it.
  jobs.forEach((job, i) => {
    if (out[i] !== undefined) return;
    const first = out[firstOfKey.get(job.key!)!];
    if (first) out[i] = { id: first.id, created: false, state: first.state };
  });
  // Every place, holes too (Array#some skips them): a job no row answered for is never handed back as nothing.
  if (jobs.some((_, i) => out[i] === undefined)) {
    // The job holding a key was deleted between the conflict and the look-up: the caller's retry inserts it.
    throw Object.assign(new Error('a job with this key was deleted while the batch was inserted'), { code: '40001' });
  }
  return out as InsertResult[];
}
