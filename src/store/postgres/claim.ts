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
 * Grouped jobs and names with limits of their own are claimed by
 * claim-limited.ts instead, in a transaction that serializes such claims.
 * This statement leaves grouped jobs alone (jobs_ready holds none) and
 * skips names a RateLimitedError paused; the request also asks whether any
 * grouped job is pending. When one is, the claim goes on in claim-limited.ts
 * for what it did not fill, and so do this claimer's next claims, until a
 * limited claim finds none pending.
 *
 * A claim whose connection broke (a server restart) may have committed with
 * its reply lost: its jobs would then sit leased under a token nobody holds
 * until the lease ran out, and each would lose an attempt without having
 * run. The claimer keeps the tokens of such claims and, at its next call,
 * takes back the jobs still held under them before claiming more.
 */
import { isDatabaseUnavailable } from '../../errors.js';
import { hasNameLimit } from '../limited-claim.js';
import { toLeasedRecord, type ReadyRow } from '../sqlite/rows.js';
import type { ClaimRequest, ClaimResult, LeasedJob } from '../store.js';
import { createLimitedClaim, type Sent } from './claim-limited.js';
import { READY_COLUMNS } from './claim-limited-sql.js';
import type { Database } from './connect.js';
import type { QueryResult } from './driver.js';
import { literal, render } from './sql.js';

/** Planner settings for the claim's own transaction (see above). */
const SETTINGS = 'SET LOCAL enable_bitmapscan = off; SET LOCAL jit = off;';

/** Claims in doubt kept at most: beyond a long outage's worth, the oldest leases run out instead. */
const MAX_IN_DOUBT = 64;

/** The names of $5 that are not paused, by a pause (paused.sql) or a RateLimitedError (limits-names-paused.sql), at $4. */
const OPEN_NAMES = `SELECT n FROM unnest($5::text[]) AS n
  WHERE NOT EXISTS (SELECT 1 FROM {{schema}}.paused_names p WHERE p.name = n OR p.name = '')
    AND NOT EXISTS (SELECT 1 FROM {{schema}}.job_limits l WHERE l.kind = 'name' AND l.key = n AND l.paused_until > $4)`;

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
       WHERE state = $1 AND group_key IS NULL AND run_at <= $4
         AND name = ANY (ARRAY(${OPEN_NAMES}))
       ORDER BY priority DESC, run_at, id
       LIMIT $6
       FOR UPDATE SKIP LOCKED
     ), leased AS (
       UPDATE {{schema}}.jobs j
       SET state = $2, attempts = j.attempts + $3::int, lease_owner = $7, lease_token = $8, locked_until = $9, updated_at = $4, version = j.version + 1,
         -- The claimed state holds unique keys of span 'active' (2) or longer (engine/unique.ts).
         unique_key = CASE WHEN j.unique_span >= 2 THEN j.unique_key END
       WHERE j.id = ANY (ARRAY(SELECT id FROM ready))
       RETURNING ${READY_COLUMNS.split(', ').map((c) => `j.${c}`).join(', ')}
     )${record}
     SELECT * FROM leased ORDER BY priority DESC, run_at, id`,
    schema,
  );
}

/**
 * Sent after the claim, in the same request: whether any grouped job is
 * pending (one step into jobs_grouped), and the earliest end of a
 * RateLimitedError pause among the names (the claim loop comes back then).
 */
export function probeStatement(schema: string): string {
  return render(
    `SELECT EXISTS (SELECT 1 FROM {{schema}}.jobs WHERE state = $1 AND group_key IS NOT NULL) AS grouped,
       (SELECT min(l.paused_until) FROM {{schema}}.job_limits l
        WHERE l.kind = 'name' AND l.paused_until > $4 AND l.key = ANY ($5::text[])
          AND NOT EXISTS (SELECT 1 FROM {{schema}}.paused_names p WHERE p.name = l.key OR p.name = '')) AS pause_ends`,
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

/** RETURNING (and a later look) gives the attempts and version after the claim; the record is built from the row as it was read. */
const leased = (r: ReadyRow, claim: Sent): LeasedJob => toLeasedRecord({ ...r, attempts: r.attempts - claim.attempts, version: Number(r.version) - 1 }, claim);

export type Claimer = (req: ClaimRequest) => Promise<ClaimResult>;

/** `nextToken`: a new lease token, one per claim statement or transaction. */
export function createClaimer(db: Database, schema: string, history: boolean, nextToken: () => string): Claimer {
  const s = { claim: `${claimStatement(schema, history)};\n${probeStatement(schema)}`, held: heldStatement(schema) };
  const limited = createLimitedClaim(db, schema, history);
  const inDoubt = new Map<string, Sent>();
  /** Grouped jobs were pending at this claimer's last look: its claims take the limited path. */
  let grouped = false;

  /**
   * The jobs of claims in doubt that are still held under their tokens: they
   * are this process's. A rate-limited one comes back with `startBy` at its
   * claim's time, already past: its token was stamped at that claim or at its
   * start deadline, so it goes back unstarted rather than starting late.
   */
  const takeBack = async (state: string, limits: ClaimRequest['limits']): Promise<LeasedJob[]> => {
    const claims = [...inDoubt.values()].filter((c) => c.state === state);
    if (claims.length === 0) return [];
    const byToken = new Map(claims.map((c) => [c.token, c]));
    const { rows } = await db.query<ReadyRow & { lease_token: string }>(s.held, [[...byToken.keys()], state]);
    // Answered: a claim with no rows never committed, or its lease ran out and the sweeper took the jobs back.
    for (const token of byToken.keys()) inDoubt.delete(token);
    return rows.map((r) => {
      const claim = byToken.get(r.lease_token)!;
      return limits?.get(r.name)?.rateLimit ? { ...leased(r, claim), startBy: claim.now } : leased(r, claim);
    });
  };

  /** Runs one claim under `sent`'s token; a claim whose reply was lost with the connection is kept in doubt. */
  const inDoubtOnLoss = async <T>(sent: Sent, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        inDoubt.set(sent.token, sent);
        if (inDoubt.size > MAX_IN_DOUBT) inDoubt.delete(inDoubt.keys().next().value!);
      }
      throw err;
    }
  };

  const fast = async (req: ClaimRequest, limit: number, sent: Sent) => {
    const { rule } = req;
    const values: ClaimValue[] = [rule.from, rule.to, rule.attempts, req.now, req.names, limit, req.owner, sent.token, sent.lockedUntil];
    if (history) values.push(rule.event);
    // The simple protocol answers each statement of the request: the claim's, then the probe's.
    const answer = (await db.query<ReadyRow>(claimRequest(s.claim, values))) as unknown as Array<QueryResult<ReadyRow>>;
    const probe = answer.at(-1)!.rows[0] as unknown as { grouped: boolean; pause_ends: number | null };
    return { jobs: answer.at(-2)!.rows.map((r) => leased(r, sent)), ...probe };
  };

  return async (req) => {
    const { rule } = req;
    if (!Number.isSafeInteger(rule.attempts)) throw new TypeError(`claim rule attempts must be an integer, got ${rule.attempts}`);
    if (req.names.length === 0 || req.limit <= 0) return [];
    const got: ClaimResult = await takeBack(rule.to, req.limits);
    if (got.length >= req.limit) return got;
    const sentFor = (): Sent => ({ state: rule.to, attempts: rule.attempts, owner: req.owner, token: nextToken(), lockedUntil: req.now + req.leaseMs, now: req.now });
    try {
      if (!grouped && !req.names.some((n) => hasNameLimit(req.limits?.get(n)))) {
        const sent = sentFor();
        const found = await inDoubtOnLoss(sent, () => fast(req, req.limit - got.length, sent));
        got.push(...found.jobs);
        grouped = found.grouped;
        if (!grouped || got.length >= req.limit) {
          if (found.pause_ends !== null && got.length < req.limit) got.heldBack = { until: found.pause_ends };
          return got;
        }
      }
      const sent = sentFor();
      // The jobs already got go to the idle workers first.
      const startNow = req.startNow === undefined ? {} : { startNow: Math.max(0, req.startNow - got.length) };
      const found = await inDoubtOnLoss(sent, () => limited({ ...req, limit: req.limit - got.length, ...startNow }, sent));
      got.push(...found.jobs);
      grouped = found.grouped;
      if (found.heldBack) got.heldBack = found.heldBack;
      return got;
    } catch (err) {
      // Jobs already leased to this process (taken back, or by the fast part): handed over even though the rest failed.
      if (got.length > 0) return got;
      throw err;
    }
  };
}
