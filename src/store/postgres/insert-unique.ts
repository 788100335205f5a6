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
import type { InsertResult, NewJob, UniqueGuard } from '../store.js';
import type { Queryable } from './driver.js';
import { render } from './sql.js';

export interface UniqueStatements {
  insert: string;
  find: string;
  debounce: string;
  throttleExpired: string;
}

const HELD = 'unique_kind = $1 AND unique_key = $2';

export function uniqueStatements(schema: string): UniqueStatements {
  return {
    insert: render(
      `INSERT INTO {{schema}}.jobs (name, state, payload, priority, run_at, retry, timeout_ms, created_at, updated_at, unique_kind, unique_key, unique_span, unique_until, group_key)
       VALUES ($3, $4, $5, $6, $7, $8, $9, $10, $10, $1, $2, $11, $12, $13)
       ON CONFLICT (unique_kind, unique_key) WHERE unique_key IS NOT NULL DO NOTHING
       RETURNING id`,
      schema,
    ),
    find: render(`SELECT id, state, unique_until FROM {{schema}}.jobs WHERE ${HELD}`, schema),
    debounce: render(`UPDATE {{schema}}.jobs SET payload = $3, run_at = $4, updated_at = $5, version = version + 1 WHERE ${HELD} RETURNING id, state`, schema),
    throttleExpired: render(`UPDATE {{schema}}.jobs SET unique_key = NULL WHERE ${HELD} AND unique_until <= $3`, schema),
  };
}

/** Rounds before giving up on a key that keeps changing hands (each round follows another writer's commit). */
const ROUNDS = 20;

export async function insertUnique(client: Queryable, s: UniqueStatements, job: NewJob, guard: UniqueGuard, at: number): Promise<InsertResult> {
  const held = [guard.kind, guard.key];
  for (let round = 0; round < ROUNDS; round++) {
    if (guard.kind === 'throttle') await client.query(s.throttleExpired, [...held, at]);
    if (guard.kind === 'debounce') {
      const { rows } = await client.query<{ id: number | string; state: string }>(s.debounce, [...held, job.payload, job.runAt, at]);
      if (rows[0]) return { id: Number(rows[0].id), created: false, state: rows[0].state };
    }
    const values = [...held, job.name, job.state, job.payload, job.priority, job.runAt, job.retry, job.timeout, at, guard.span, guard.until, job.group ?? null];
    const inserted = await client.query<{ id: number | string }>(s.insert, values);
    if (inserted.rows[0]) return { id: Number(inserted.rows[0].id), created: true, state: job.state };
    // Another process took the debounce key meanwhile: its job takes this payload, next round.
    if (guard.kind === 'debounce') continue;
    const { rows } = await client.query<{ id: number | string; state: string; unique_until: number | string | null }>(s.find, held);
    const holder = rows[0];
    // A throttle holder whose insert committed only after this one began (the insert above waited
    // for it) may already be past its window: the first enqueue after the window makes a new job.
    // Next round gives its key back, now that its row is visible.
    if (holder && guard.kind === 'throttle' && holder.unique_until !== null && Number(holder.unique_until) <= at) continue;
    if (holder) return { id: Number(holder.id), created: false, state: holder.state };
  }
  // The caller's transaction retries on this code.
  throw Object.assign(new Error(`${guard.kind} key "${guard.key}" kept changing hands while it was inserted`), { code: '40001' });
}
