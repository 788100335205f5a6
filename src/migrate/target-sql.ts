/**
 * The statements `litejobs migrate` runs on the PostgreSQL schema. They are
 * its own, not the store's: the copy writes rows as they are (ids, states,
 * leases, history) where the store only ever writes through the job machine.
 * Columns are bound as arrays and unnested, as the store's insert does, so a
 * batch is one statement per table.
 */
import { render } from '../store/postgres/sql.js';

export function targetStatements(schema: string) {
  const q = (text: string) => render(text, schema);
  return {
    // The source's ids are kept: OVERRIDING SYSTEM VALUE lets an identity column take them.
    // A key already held by another job inserts nothing for that row (RETURNING tells which went in).
    insertJobs: q(`INSERT INTO {{schema}}.jobs (id, name, state, payload, key, priority, run_at, attempts, last_error, ctx, retry,
        timeout_ms, result, progress, lease_owner, lease_token, locked_until, created_at, updated_at)
      OVERRIDING SYSTEM VALUE
      SELECT id, name, state, payload, key, priority, run_at, attempts, last_error, ctx, retry,
        timeout_ms, result, progress, lease_owner, lease_token, locked_until, created_at, updated_at
      FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::bigint[], $8::int[], $9::text[], $10::text[],
        $11::text[], $12::bigint[], $13::text[], $14::float8[], $15::text[], $16::text[], $17::bigint[], $18::bigint[], $19::bigint[])
        WITH ORDINALITY AS u (id, name, state, payload, key, priority, run_at, attempts, last_error, ctx, retry,
          timeout_ms, result, progress, lease_owner, lease_token, locked_until, created_at, updated_at, ord)
      ORDER BY ord
      ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING
      RETURNING id`),
    insertHistory: q(`INSERT INTO {{schema}}.job_history (id, job_id, from_state, to_state, event, candidate, at, worker_id, lease_token, error)
      OVERRIDING SYSTEM VALUE
      SELECT id, job_id, from_state, to_state, event, candidate, at, worker_id, lease_token, error
      FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::int[], $7::bigint[], $8::text[], $9::text[], $10::text[])
        WITH ORDINALITY AS u (id, job_id, from_state, to_state, event, candidate, at, worker_id, lease_token, error, ord)
      ORDER BY ord`),
    jobsAt: q('SELECT id, name, created_at, key FROM {{schema}}.jobs WHERE id = ANY($1::bigint[])'),
    historyAt: q('SELECT id FROM {{schema}}.job_history WHERE id = ANY($1::bigint[]) LIMIT 1'),
    holders: q('SELECT id, key FROM {{schema}}.jobs WHERE key = ANY($1::text[])'),
    // The target's own count of what this batch wrote, read inside the batch's transaction.
    statesOf: q('SELECT state, count(*) AS n FROM {{schema}}.jobs WHERE id = ANY($1::bigint[]) GROUP BY state'),
    pausedNames: q('INSERT INTO {{schema}}.paused_names (name, paused_at) SELECT * FROM unnest($1::text[], $2::bigint[]) ON CONFLICT (name) DO NOTHING'),
    // Progress rows: `migrate <source path> <field>` in queue_meta.
    meta: q('SELECT key, value FROM {{schema}}.queue_meta WHERE left(key, length($1)) = $1'),
    metaFor: q('SELECT value FROM {{schema}}.queue_meta WHERE key = $1 FOR UPDATE'),
    setMeta: q(`INSERT INTO {{schema}}.queue_meta (key, value) SELECT * FROM unnest($1::text[], $2::bigint[])
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
    addMeta: q(`INSERT INTO {{schema}}.queue_meta AS m (key, value) SELECT * FROM unnest($1::text[], $2::bigint[])
      ON CONFLICT (key) DO UPDATE SET value = m.value + excluded.value`),
    dropTallies: q('DELETE FROM {{schema}}.queue_meta WHERE left(key, length($1)) = $1'),
    sequence: `SELECT pg_get_serial_sequence($1, 'id') AS seq`,
    // Running workers on this schema hear of the new jobs (the store's channel is the schema's name).
    notify: 'SELECT pg_notify($1, $2)',
  };
}

export type TargetStatements = ReturnType<typeof targetStatements>;
