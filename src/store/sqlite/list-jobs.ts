/** listJobs(): one page of jobs, filtered by state and name, in id order (or newest first). */
import type Database from 'better-sqlite3';
import type { JobRecord, ListFilter } from '../store.js';
import { toJobRecord, type JobRow } from '../job-columns.js';

export function listJobs(db: Database.Database, filter: ListFilter): JobRecord[] {
  const where: string[] = [];
  if (filter.state !== undefined) where.push('state = @state');
  if (filter.name !== undefined) where.push('name = @name');
  if (filter.after !== undefined) where.push(filter.newest ? 'id < @after' : 'id > @after');
  const text = `SELECT * FROM jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id ${filter.newest ? 'DESC' : ''} LIMIT @limit`;
  const params: Record<string, unknown> = { limit: filter.limit ?? 100 };
  if (filter.state !== undefined) params.state = filter.state;
  if (filter.name !== undefined) params.name = filter.name;
  if (filter.after !== undefined) params.after = filter.after;
  return (db.prepare(text).all(params) as JobRow[]).map(toJobRecord);
}
