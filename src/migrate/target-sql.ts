/**
 * The statements `litejobs migrate` runs on the PostgreSQL schema. They are
 * its own, not the store's: the copy writes rows as they are (ids, states,
 * leases, history) where the store only ever writes through the job machine.
 * Columns are bound as arrays and unnested, as the store's insert does, so a
 * batch is one statement per table (columns.ts).
 */
import { render } from '../store/postgres/sql.js';
import { HISTORY_COLUMNS, JOB_COLUMNS, LIMIT_COLUMNS, LOG_COLUMNS, MESSAGE_COLUMNS, STEP_COLUMNS, unnestInsert, VALUE_COLUMNS } from './columns.js';

export function targetStatements(schema: string) {
  const q = (text: string) => render(text, schema);
  return {
    // A key already held by another job inserts nothing for that row (RETURNING tells which went in).
    // A unique key another job in the target holds now stays with that job: the copied job comes in without it.
    insertJobs: `${unnestInsert(q('{{schema}}.jobs'), JOB_COLUMNS, {
      unique_key: q('CASE WHEN EXISTS (SELECT 1 FROM {{schema}}.jobs t WHERE t.unique_kind = u.unique_kind AND t.unique_key = u.unique_key) THEN NULL ELSE u.unique_key END'),
    })}
      ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING
      RETURNING id`,
    insertHistory: unnestInsert(q('{{schema}}.job_history'), HISTORY_COLUMNS),
    // Only the steps of jobs this batch inserted: a job found present keeps its own.
    insertSteps: `${unnestInsert(q('{{schema}}.job_steps'), STEP_COLUMNS)} ON CONFLICT (job_id, name) DO NOTHING`,
    // The same for log lines.
    insertLogs: `${unnestInsert(q('{{schema}}.job_logs'), LOG_COLUMNS)} ON CONFLICT (job_id, seq) DO NOTHING`,
    // Mailboxes and published values likewise (numbered anew in the order sent).
    insertMessages: unnestInsert(q('{{schema}}.job_messages'), MESSAGE_COLUMNS),
    insertValues: `${unnestInsert(q('{{schema}}.job_values'), VALUE_COLUMNS)} ON CONFLICT (job_id, key) DO NOTHING`,
    jobsAt: q('SELECT id, name, created_at, key FROM {{schema}}.jobs WHERE id = ANY($1::bigint[])'),
    historyAt: q('SELECT id FROM {{schema}}.job_history WHERE id = ANY($1::bigint[]) LIMIT 1'),
    holders: q('SELECT id, key FROM {{schema}}.jobs WHERE key = ANY($1::text[])'),
    // The target's own count of what this batch wrote, read inside the batch's transaction.
    statesOf: q('SELECT state, count(*) AS n FROM {{schema}}.jobs WHERE id = ANY($1::bigint[]) GROUP BY state'),
    schedules: q(`INSERT INTO {{schema}}.schedules (id, name, cron, every_ms, tz, payload, missed, start_at, end_at, run_limit, immediately, fired, last_slot, created_at, updated_at)
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::int[], $11::boolean[], $12::int[], $13::bigint[], $14::bigint[], $15::bigint[])
      ON CONFLICT (id) DO NOTHING`),
    // A limit row the target holds already is the target's own: kept.
    limits: `${unnestInsert(q('{{schema}}.job_limits'), LIMIT_COLUMNS)} ON CONFLICT (kind, key) DO NOTHING`,
    nameLimits: q('INSERT INTO {{schema}}.name_limits (name, rule, updated_at) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) ON CONFLICT (name) DO NOTHING'),
    nameRetention: q('INSERT INTO {{schema}}.name_retention (name, rule, updated_at) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) ON CONFLICT (name) DO NOTHING'),
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
