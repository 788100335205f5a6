/** listJobs(): one page of jobs, filtered by state and name, in id order. */
import type Database from 'better-sqlite3';
import type { JobRecord, ListFilter } from '../store.js';
import { toJobRecord, type JobRow } from './rows.js';

export function listJobs(db: Database.Database, filter: ListFilter): JobRecord[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.state !== undefined) {
    where.push('state = ?');
    params.push(filter.state);
  }
  if (filter.name !== undefined) {
    where.push('name = ?');
    params.push(filter.name);
  }
  if (filter.after !== undefined) {
    where.push('id > ?');
    params.push(filter.after);
  }
  const text = `SELECT * FROM jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id LIMIT ?`;
  params.push(filter.limit ?? 100);
  return (db.prepare(text).all(...params) as JobRow[]).map(toJobRecord);
}
