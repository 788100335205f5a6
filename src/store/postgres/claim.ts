/**
 * A claim in one call of the schema's claim_ready function (migration 009,
 * where its plan settings are explained): pick the due jobs in claim order,
 * skipping rows another claim holds (FOR UPDATE SKIP LOCKED: concurrent
 * claimers in other processes take disjoint jobs without waiting for each
 * other), lease them as the job machine's claim rule says, and record the
 * claim in the history. Paused names are read by the same call, so a pause
 * committed by any process holds from the next claim on. The function keeps
 * its statements' plans per connection, and its call goes as a prepared
 * statement: a claim is planned once per connection, not once per call.
 *
 * Grouped jobs and names with limits of their own are claimed by
 * claim-limited.ts instead, in a transaction that serializes such claims.
 * The function leaves grouped jobs alone (jobs_ready holds none) and skips
 * names a RateLimitedError paused; its last row says whether any grouped job
 * is pending. When one is, the claim goes on in claim-limited.ts for what it
 * did not fill, and so do this claimer's next claims, until a limited claim
 * finds none pending.
 *
 * A claim whose connection broke (a server restart) may have committed with
 * its reply lost: its jobs would then sit leased under a token nobody holds
 * until the lease ran out, and each would lose an attempt without having
 * run. The claimer keeps the tokens of such claims and, at its next call,
 * takes back the jobs still held under them before claiming more.
 */
import { JobState } from '../../../machines/job.machine.js';
import { isDatabaseUnavailable } from '../../errors.js';
import { hasNameLimit, rateTerms } from '../limited-claim.js';
import { toLeasedRecord, type ReadyRow } from '../job-columns.js';
import type { ClaimRequest, ClaimResult, LeasedJob } from '../store.js';
import { createLimitedClaim, type Sent } from './claim-limited.js';
import type { Database } from './open.js';
import { statement } from './sql.js';

/** Claims in doubt kept at most: beyond a long outage's worth, the oldest leases run out instead. */
const MAX_IN_DOUBT = 64;

/** sql/claim-ready.sql: the call of the schema's claim function. */
export function claimStatement(schema: string): string {
  return statement('claim-ready', schema);
}

/** A row claim_ready answers: a leased job, or (the last row, id NULL) whether grouped jobs are pending and when the names' pauses end. */
type ClaimRow = ReadyRow & { grouped: boolean | null; pause_ends: number | null };

/** sql/claim-held.sql: the jobs still held under claims whose reply was lost. */
export function heldStatement(schema: string): string {
  return statement('claim-held', schema);
}

/**
 * RETURNING (and a later look) gives the attempts and version after the
 * claim; the record is built from the row as it was read. The row is the
 * driver's, read once: set back in place rather than copied (a copy of each
 * claimed row was a tenth of a drain's garbage on the claim's side).
 */
const leased = (r: ReadyRow, claim: Sent): LeasedJob => {
  r.attempts -= claim.attempts;
  r.version = Number(r.version) - 1;
  return toLeasedRecord(r, claim);
};

export type Claimer = (req: ClaimRequest) => Promise<ClaimResult>;

/** `nextToken`: a new lease token, one per claim statement or transaction. */
export function createClaimer(db: Database, schema: string, history: boolean, nextToken: () => string): Claimer {
  const s = { claim: claimStatement(schema), held: heldStatement(schema) };
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
  const takeBack = async (state: string, owner: string, limits: ClaimRequest['limits']): Promise<LeasedJob[]> => {
    // The claimer's own, as its caller: a process's worker pools and its take() share the store, each claiming its own names.
    const claims = [...inDoubt.values()].filter((c) => c.state === state && c.owner === owner);
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
    const { rows } = await db.query<ClaimRow>(s.claim, [req.names, req.now, limit, req.owner, sent.token, sent.lockedUntil, rule.attempts, rule.event, history, rateTerms(req).now]);
    const probe = rows.pop()!;
    return { jobs: rows.map((r) => leased(r, sent)), grouped: probe.grouped === true, pause_ends: probe.pause_ends };
  };

  return async (req) => {
    const { rule } = req;
    if (!Number.isSafeInteger(rule.attempts)) throw new TypeError(`claim rule attempts must be an integer, got ${rule.attempts}`);
    // claim_ready writes the claim edge every accepted machine has (machine-registry.ts).
    if (rule.from !== JobState.pending || rule.to !== JobState.processing) throw new TypeError(`claim rule must take ${JobState.pending} to ${JobState.processing}, not ${rule.from} to ${rule.to}`);
    if (req.names.length === 0 || req.limit <= 0) return { jobs: [] };
    const got = await takeBack(rule.to, req.owner, req.limits);
    if (got.length >= req.limit) return { jobs: got };
    const sentFor = (): Sent => ({ state: rule.to, attempts: rule.attempts, owner: req.owner, token: nextToken(), lockedUntil: req.now + req.leaseMs, now: req.now });
    try {
      if (!grouped && !req.names.some((n) => hasNameLimit(req.limits?.get(n)))) {
        const sent = sentFor();
        const found = await inDoubtOnLoss(sent, () => fast(req, req.limit - got.length, sent));
        got.push(...found.jobs);
        grouped = found.grouped;
        if (!grouped || got.length >= req.limit) {
          return found.pause_ends !== null && got.length < req.limit ? { jobs: got, heldBack: { until: found.pause_ends } } : { jobs: got };
        }
      }
      const sent = sentFor();
      // The jobs already got go to the idle workers first.
      const startNow = req.startNow === undefined ? {} : { startNow: Math.max(0, req.startNow - got.length) };
      const found = await inDoubtOnLoss(sent, () => limited({ ...req, limit: req.limit - got.length, ...startNow }, sent));
      got.push(...found.jobs);
      grouped = found.grouped;
      return found.heldBack ? { jobs: got, heldBack: found.heldBack } : { jobs: got };
    } catch (err) {
      // Jobs already leased to this process (taken back, or by the fast part): handed over even though the rest failed.
      if (got.length > 0) return { jobs: got };
      throw err;
    }
  };
}
