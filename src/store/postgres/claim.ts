/**
 * A claim in one statement: pick the due jobs in claim order, skipping rows
 * another claim holds (FOR UPDATE SKIP LOCKED: concurrent claimers in other
 * processes take disjoint jobs without waiting for each other), lease them as
 * the job machine's claim rule says, and record the claim in the history.
 * Paused names are read by the same statement, so a pause committed by any
 * process holds from the next claim on. The rule's values are bound: an
 * unnamed statement is planned with them, so the planner still sees that
 * `state = 'pending'` matches the partial index jobs_ready.
 */
import type { ClaimRequest, LeasedJob } from '../store.js';
import { toLeasedRecord, type ReadyRow } from '../sqlite/rows.js';
import type { Queryable } from './driver.js';
import { render } from './sql.js';

const READY_COLUMNS = 'id, name, payload, key, priority, run_at, attempts, last_error, ctx, retry, timeout_ms, created_at';

/** $1 from, $2 to, $3 attempts, $4 now, $5 names, $6 limit, $7 owner, $8 token, $9 locked until; $10 event (with history only). */
export function claimStatement(schema: string, history: boolean): string {
  const record = history
    ? `, recorded AS (
         INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, at, worker_id, lease_token)
         SELECT id, $1, $2, $10, $4, $7, $8 FROM leased
       )`
    : '';
  return render(
    `WITH ready AS (
       SELECT id FROM {{schema}}.jobs
       WHERE state = $1 AND run_at <= $4 AND name = ANY($5::text[])
         AND NOT EXISTS (SELECT 1 FROM {{schema}}.paused_names p WHERE p.name = jobs.name OR p.name = '')
       ORDER BY priority DESC, run_at, id
       LIMIT $6
       FOR UPDATE SKIP LOCKED
     ), leased AS (
       UPDATE {{schema}}.jobs j
       SET state = $2, attempts = j.attempts + $3::int, lease_owner = $7, lease_token = $8, locked_until = $9, updated_at = $4
       FROM ready WHERE j.id = ready.id
       RETURNING ${READY_COLUMNS.split(', ').map((c) => `j.${c}`).join(', ')}
     )${record}
     SELECT * FROM leased ORDER BY priority DESC, run_at, id`,
    schema,
  );
}

export async function claimJobs(db: Queryable, statement: string, history: boolean, req: ClaimRequest, token: string): Promise<LeasedJob[]> {
  const { rule } = req;
  if (!Number.isSafeInteger(rule.attempts)) throw new TypeError(`claim rule attempts must be an integer, got ${rule.attempts}`);
  if (req.names.length === 0 || req.limit <= 0) return [];
  const lockedUntil = req.now + req.leaseMs;
  const values = [rule.from, rule.to, rule.attempts, req.now, req.names, req.limit, req.owner, token, lockedUntil];
  if (history) values.push(rule.event);
  const { rows } = await db.query<ReadyRow>(statement, values);
  const claim = { state: rule.to, attempts: rule.attempts, owner: req.owner, token, lockedUntil, now: req.now };
  // RETURNING gives the attempts after the claim; the record is built from the row as it was read.
  return rows.map((r) => toLeasedRecord({ ...r, attempts: r.attempts - rule.attempts }, claim));
}
