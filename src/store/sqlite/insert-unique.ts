/**
 * Inserts one job with a unique, debounce or throttle key, inside the insert
 * transaction (which holds SQLite's write lock, so the look-ups and the
 * insert see one state of the table):
 * - throttle: a holder whose window passed gives the key back first;
 * - debounce: a holder (still unclaimed) takes this payload and run time;
 * - otherwise insert, or hand back the holder of the key.
 */
import type Database from 'better-sqlite3';
import type { EnqueuedRow } from '../job-columns.js';
import type { InsertResult, UniqueGuard } from '../store.js';
import { positional, type PositionalStatement } from './positional.js';
import { sql } from './sql.js';

type Guarded = { kind: string; key: string };

export interface UniqueStatements {
  insert: PositionalStatement<Record<string, unknown>>;
  find: Database.Statement<Guarded, { id: number; state: string }>;
  debounce: Database.Statement<Guarded & { payload: string; runAt: number; at: number }, { id: number; state: string }>;
  throttleExpired: Database.Statement<Guarded & { at: number }>;
}

export function uniqueStatements(db: Database.Database): UniqueStatements {
  return {
    insert: positional(db, sql('insert-unique')),
    find: db.prepare(sql('find-by-unique')),
    debounce: db.prepare(sql('unique-debounce')),
    throttleExpired: db.prepare(sql('unique-throttle-expired')),
  };
}

/** `row`: the job's values as insert.sql binds them (its `id` as there). */
export function insertUnique(
  s: UniqueStatements,
  row: EnqueuedRow & { id: number | null; at: number },
  guard: UniqueGuard,
): InsertResult {
  const held = { kind: guard.kind, key: guard.key };
  // A throttle window is on the database's clock (UniqueGuard `clockAt`).
  if (guard.kind === 'throttle') s.throttleExpired.run({ ...held, at: guard.clockAt ?? row.at });
  if (guard.kind === 'debounce') {
    const replaced = s.debounce.get({ ...held, payload: row.payload, runAt: row.runAt, at: row.at });
    if (replaced) return { id: replaced.id, created: false, state: replaced.state };
  }
  const inserted = s.insert.get({ ...row, ...held, span: guard.span, until: guard.until }) as { id: number } | undefined;
  if (inserted) return { id: inserted.id, created: true, state: row.state };
  const holder = s.find.get(held)!;
  return { id: holder.id, created: false, state: holder.state };
}
