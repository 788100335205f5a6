/** list(): one page of jobs, filtered by state and name, in id order or newest first (sql/list-jobs.sql; the SQLite store's list-jobs.ts). */
import type { JobRecord, ListFilter } from '../store.js';
import { toJobRecord, type JobRow } from '../job-columns.js';
import type { Database } from './open.js';
import { statement } from './sql.js';

export async function listJobs(db: Database, schema: string, filter: ListFilter): Promise<JobRecord[]> {
  const where: string[] = [];
  const values: unknown[] = [];
  const bind = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.state !== undefined) where.push(`state = ${bind(filter.state)}`);
  if (filter.name !== undefined) where.push(`name = ${bind(filter.name)}`);
  if (filter.after !== undefined) where.push(`id ${filter.newest ? '<' : '>'} ${bind(filter.after)}`);
  const limit = bind(filter.limit ?? 100);
  const text = statement('list-jobs', schema, { where: where.length ? `WHERE ${where.join(' AND ')}` : '', direction: filter.newest ? 'DESC' : 'ASC', limit });
  return (await db.rows<JobRow>(text, values)).map(toJobRecord);
}
