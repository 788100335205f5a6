/**
 * The keyless jobs of a batch, many rows per INSERT (insert-keyless.sql's
 * row, repeated). One statement run per row paid better-sqlite3's bind, step
 * and reset for each job: 50,000 jobs in batches of 1,000 went in at ~430k
 * rows/s one row a statement and ~810k at 50 rows a statement (raw
 * better-sqlite3 on the same table, this machine).
 *
 * The rows take ids above the newest one, as a lone INSERT does (a rowid
 * table, inside the batch's write transaction: nothing else inserts
 * meanwhile). The caller reads the newest id first and passes the next one:
 * k rows, all above it, the last of them at newest + k, are newest + 1 …
 * newest + k, in order. A statement that ends elsewhere throws, and the
 * batch rolls back, rather than hand out a wrong id.
 */
import type Database from 'better-sqlite3';
import { DatabaseError } from '../../errors.js';
import { ENQUEUED_FIELDS, writeEnqueued } from '../job-columns.js';
import type { NewJob } from '../store.js';
import { sql } from './sql.js';

/** Rows per statement: past ~50 a statement gains nothing more (and binds a dozen values a row). */
export const ROWS_PER_STATEMENT = 50;

/** insert-keyless.sql's parameters, in the order its VALUES names them (checked when prepared): the enqueued set's, then the time twice. */
const PARAMS = [...ENQUEUED_FIELDS, 'at', 'at'];

/** Inserts `jobs[from..to)` (keyless, no unique guard) whose first row takes `firstId`; returns the last id. */
export type InsertRows = (jobs: readonly NewJob[], from: number, to: number, at: number, firstId: number) => number;

/** The statement for `rows` rows, and its parameter array (refilled on each run: binding copies the values out). */
function prepareRows(db: Database.Database, rows: number): { statement: Database.Statement; values: unknown[] } {
  const text = sql('insert-keyless').replace(/--[^\n]*/g, '');
  const names: string[] = [];
  const one = text.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    names.push(name);
    return '?';
  });
  if (names.join() !== PARAMS.join()) throw new TypeError(`insert-keyless.sql binds ${names.join(', ')}, not ${PARAMS.join(', ')}`);
  const at = one.indexOf('VALUES');
  const tuple = one.slice(at + 'VALUES'.length).trim();
  const statement = db.prepare(`${one.slice(0, at)}VALUES ${Array.from({ length: rows }, () => tuple).join(', ')}`);
  return { statement, values: new Array<unknown>(rows * PARAMS.length) };
}

export function createInsertRows(db: Database.Database): InsertRows {
  const many = prepareRows(db, ROWS_PER_STATEMENT);
  const single = prepareRows(db, 1);

  const run = ({ statement, values }: { statement: Database.Statement; values: unknown[] }, jobs: readonly NewJob[], from: number, count: number, at: number, firstId: number): number => {
    for (let k = 0; k < count; k++) {
      const o = writeEnqueued(jobs[from + k]!, values, k * PARAMS.length);
      values[o] = at;
      values[o + 1] = at;
    }
    const last = Number(statement.run(values).lastInsertRowid);
    if (last !== firstId + count - 1) {
      throw new DatabaseError('LJ_ERR_DATABASE', `a batch insert of ${count} jobs ended at id ${last}, not ${firstId + count - 1}: nothing of the batch was written`);
    }
    return last;
  };

  return (jobs, from, to, at, firstId) => {
    let next = firstId;
    let i = from;
    for (; i + ROWS_PER_STATEMENT <= to; i += ROWS_PER_STATEMENT) next = run(many, jobs, i, ROWS_PER_STATEMENT, at, next) + 1;
    for (; i < to; i++) next = run(single, jobs, i, 1, at, next) + 1;
    return next - 1;
  };
}
