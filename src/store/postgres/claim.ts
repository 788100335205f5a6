/**
 * A claim in one statement: pick the due jobs in claim order, skipping rows
 * another claim holds (FOR UPDATE SKIP LOCKED: concurrent claimers in other
 * processes take disjoint jobs without waiting for each other), lease them as
 * the job machine's claim rule says, and record the claim in the history.
 * Paused names are read by the same statement, so a pause committed by any
 * process holds from the next claim on.
 *
 * The claim must walk jobs_ready in order and stop after `limit` jobs,
 * whatever the planner believes of the table. Three things keep it there:
 *
 * - Its values are written into the text (quoted by `literal`), so the
 *   planner sees that `state = 'pending'` matches the partial index.
 * - It runs with bitmap scans (and JIT) off for its own transaction:
 *   without statistics (a burst of jobs after an idle spell, before
 *   autovacuum analyzes the table) the planner took the backlog for a
 *   handful of rows, and read all of it and sorted it for every claim
 *   (26 ms for 400 jobs of a 50k backlog, against 3 ms in order). Both
 *   settings are `SET LOCAL` in the same simple-protocol request, which runs
 *   as one implicit transaction: one round trip, nothing left set after it.
 * - The pauses filter the names once per claim, not the jobs row by row:
 *   joined against each job, the (small, never analyzed) paused_names table
 *   made the planner expect almost no job to pass.
 *
 * The leased rows are then found by primary key from an array, not joined:
 * a join hashed the whole table when the planner took it for small.
 *
 * A claim whose connection broke (a server restart) may have committed with
 * its reply lost: its jobs would then sit leased under a token nobody holds
 * until the lease ran out, and each would lose an attempt without having
 * run. The claimer keeps the tokens of such claims and, at its next call,
 * takes back the jobs still held under them before claiming more.
 */
import { isDatabaseUnavailable } from '../../errors.js';
import type { ClaimRequest, LeasedJob } from '../store.js';
import { toLeasedRecord, type ReadyRow } from '../sqlite/rows.js';
import type { Queryable, QueryResult } from './driver.js';
import { literal, render } from './sql.js';

/** Planner settings for the claim's own transaction (see above). */
const SETTINGS = 'SET LOCAL enable_bitmapscan = off; SET LOCAL jit = off;';

/** Claims in doubt kept at most: beyond a long outage's worth, the oldest leases run out instead. */
const MAX_IN_DOUBT = 64;

const READY_COLUMNS = 'id, name, payload, key, priority, run_at, attempts, last_error, ctx, retry, timeout_ms, created_at';

/** $1 from, $2 to, $3 attempts, $4 now, $5 names, $6 limit, $7 owner, $8 token, $9 locked until; $10 event (with history only): replaced by literals per claim. */
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
       WHERE state = $1 AND run_at <= $4
         AND name = ANY (ARRAY(
           SELECT n FROM unnest($5::text[]) AS n
           WHERE NOT EXISTS (SELECT 1 FROM {{schema}}.paused_names p WHERE p.name = n OR p.name = '')
         ))
       ORDER BY priority DESC, run_at, id
       LIMIT $6
       FOR UPDATE SKIP LOCKED
     ), leased AS (
       UPDATE {{schema}}.jobs j
       SET state = $2, attempts = j.attempts + $3::int, lease_owner = $7, lease_token = $8, locked_until = $9, updated_at = $4,
         -- The claimed state holds unique keys of span 'active' (2) or longer (engine/unique.ts).
         unique_key = CASE WHEN j.unique_span >= 2 THEN j.unique_key END
       WHERE j.id = ANY (ARRAY(SELECT id FROM ready))
       RETURNING ${READY_COLUMNS.split(', ').map((c) => `j.${c}`).join(', ')}
     )${record}
     SELECT * FROM leased ORDER BY priority DESC, run_at, id`,
    schema,
  );
}

/** What a claim writes into its statement, in the order of its placeholders. */
export type ClaimValue = string | number | readonly string[];

/** The text a claim sends: its settings, then the statement with `values` written in. */
export function claimRequest(statement: string, values: readonly ClaimValue[]): string {
  // `\d+` reads `$10` whole, and one pass never reads a replacement again.
  return `${SETTINGS}\n${statement.replace(/\$(\d+)/g, (_, n: string) => literal(values[Number(n) - 1]!))}`;
}

/** $1 lease tokens, $2 the claimed state: the jobs still held under claims whose reply was lost. */
export function heldStatement(schema: string): string {
  return render(`SELECT ${READY_COLUMNS}, lease_token FROM {{schema}}.jobs WHERE lease_token = ANY($1::text[]) AND state = $2 ORDER BY priority DESC, run_at, id`, schema);
}

/** A claim as it was sent: what its jobs' records are built from. */
interface Sent {
  state: string;
  attempts: number;
  owner: string;
  token: string;
  lockedUntil: number;
  now: number;
}

/** RETURNING (and a later look) gives the attempts after the claim; the record is built from the row as it was read. */
const leased = (r: ReadyRow, claim: Sent): LeasedJob => toLeasedRecord({ ...r, attempts: r.attempts - claim.attempts }, claim);

export type Claimer = (req: ClaimRequest, token: string) => Promise<LeasedJob[]>;

export function createClaimer(db: Queryable, s: { claim: string; held: string }, history: boolean): Claimer {
  const inDoubt = new Map<string, Sent>();

  /** The jobs of claims in doubt that are still held under their tokens: they are this process's. */
  const takeBack = async (state: string): Promise<LeasedJob[]> => {
    const claims = [...inDoubt.values()].filter((c) => c.state === state);
    if (claims.length === 0) return [];
    const byToken = new Map(claims.map((c) => [c.token, c]));
    const { rows } = await db.query<ReadyRow & { lease_token: string }>(s.held, [[...byToken.keys()], state]);
    // Answered: a claim with no rows never committed, or its lease ran out and the sweeper took the jobs back.
    for (const token of byToken.keys()) inDoubt.delete(token);
    return rows.map((r) => leased(r, byToken.get(r.lease_token)!));
  };

  return async (req, token) => {
    const { rule } = req;
    if (!Number.isSafeInteger(rule.attempts)) throw new TypeError(`claim rule attempts must be an integer, got ${rule.attempts}`);
    if (req.names.length === 0 || req.limit <= 0) return [];
    const recovered = await takeBack(rule.to);
    const limit = req.limit - recovered.length;
    if (limit <= 0) return recovered;
    const sent: Sent = { state: rule.to, attempts: rule.attempts, owner: req.owner, token, lockedUntil: req.now + req.leaseMs, now: req.now };
    const values: ClaimValue[] = [rule.from, rule.to, rule.attempts, req.now, req.names, limit, req.owner, token, sent.lockedUntil];
    if (history) values.push(rule.event);
    try {
      // The simple protocol answers each statement of the request: the claim's is the last.
      const answer = (await db.query<ReadyRow>(claimRequest(s.claim, values))) as QueryResult<ReadyRow> | Array<QueryResult<ReadyRow>>;
      const { rows } = Array.isArray(answer) ? answer.at(-1)! : answer;
      return [...recovered, ...rows.map((r) => leased(r, sent))];
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        inDoubt.set(token, sent);
        if (inDoubt.size > MAX_IN_DOUBT) inDoubt.delete(inDoubt.keys().next().value!);
      }
      // Jobs taken back are leased to this process: hand them over even though the new claim failed.
      if (recovered.length > 0) return recovered;
      throw err;
    }
  };
}
