/**
 * Jobs with a unique, debounce or throttle key (store.ts UniqueGuard), one
 * at a time inside the insert's transaction. Other processes insert and give
 * back keys concurrently; the unique index on (unique_kind, unique_key)
 * settles who holds a key, and each step below is a single statement that
 * waits for a concurrent writer of the same row or key and then sees its
 * commit (READ COMMITTED):
 * - throttle: a holder whose window passed gives the key back (also one whose
 *   insert committed while this one waited for it: found, then retried);
 * - debounce: a holder (still unclaimed: a claim gives the key back under the
 *   row's lock) takes this payload and run time;
 * - insert, or, when the key is held, hand back its holder. A holder that
 *   gave the key back between the two is retried.
 */
import { enqueuedValues } from '../job-column-sql.js';
import type { InsertResult, NewJob, UniqueGuard } from '../store.js';
import type { Queryable } from './driver.js';
import { statement } from './sql.js';

export interface UniqueStatements {
  insert: string;
  find: string;
  debounce: string;
  throttleExpired: string;
}

export function uniqueStatements(schema: string): UniqueStatements {
  return {
    insert: statement('insert-unique', schema),
    find: statement('find-by-unique', schema),
    debounce: statement('unique-debounce', schema),
    throttleExpired: statement('unique-throttle-expired', schema),
  };
}

/** Rounds before giving up on a key that keeps changing hands (each round follows another writer's commit). */
const ROUNDS = 20;

export async function insertUnique(client: Queryable, s: UniqueStatements, job: NewJob, guard: UniqueGuard, at: number): Promise<InsertResult> {
  const held = [guard.kind, guard.key];
  // A throttle window is on the database's clock (UniqueGuard `clockAt`).
  const clockAt = guard.clockAt ?? at;
  for (let round = 0; round < ROUNDS; round++) {
    if (guard.kind === 'throttle') await client.query(s.throttleExpired, [...held, clockAt]);
    if (guard.kind === 'debounce') {
      const { rows } = await client.query<{ id: number | string; state: string }>(s.debounce, [...held, job.payload, job.runAt, at]);
      if (rows[0]) return { id: Number(rows[0].id), created: false, state: rows[0].state };
    }
    const inserted = await client.query<{ id: number | string }>(s.insert, [...held, guard.span, guard.until, at, ...enqueuedValues(job)]);
    if (inserted.rows[0]) return { id: Number(inserted.rows[0].id), created: true, state: job.state };
    // Another process took the debounce key meanwhile: its job takes this payload, next round.
    if (guard.kind === 'debounce') continue;
    const { rows } = await client.query<{ id: number | string; state: string; unique_until: number | string | null }>(s.find, held);
    const holder = rows[0];
    // A throttle holder whose insert committed only after this one began (the insert above waited
    // for it) may already be past its window: the first enqueue after the window makes a new job.
    // Next round gives its key back, now that its row is visible.
    if (holder && guard.kind === 'throttle' && holder.unique_until !== null && Number(holder.unique_until) <= clockAt) continue;
    if (holder) return { id: Number(holder.id), created: false, state: holder.state };
  }
  // The caller's transaction retries on this code.
  throw Object.assign(new Error(`${guard.kind} key "${guard.key}" kept changing hands while it was inserted`), { code: '40001' });
}
