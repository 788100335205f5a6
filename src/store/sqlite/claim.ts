/**
 * A claim, in one BEGIN IMMEDIATE transaction (the caller runs it with
 * `.immediate()`): index jobs committed on their own, read the ready jobs in
 * claim order (claim-ready.sql; with grouped jobs pending or limits on the
 * names, claim-limited.ts chooses them), lease them by id (claim-lease.sql)
 * and record the claim in the history, as the machine's claim rule says. Paused names
 * are read inside the same transaction, so a pause committed by any process
 * holds from the next claim on.
 */
import type Database from 'better-sqlite3';
import { DatabaseError } from '../../errors.js';
import { withoutPaused } from '../paused.js';
import { UniqueSpan } from '../contract/job.js';
import type { ClaimRequest, ClaimResult, ClaimRule, HeldBack, LeasedJob } from '../store.js';
import { hasNameLimit, rateTerms, withoutRatePaused } from '../limited-claim.js';
import { createLimitedClaim } from './claim-limited.js';
import { namesStatement } from './names-statement.js';
import { toLeasedRecord, type ReadyRow } from '../job-columns.js';
import { sql, withClaimRule } from './sql.js';

export function createClaim(
  db: Database.Database,
  indexNewJobs: () => void,
  recordHistory: boolean,
  pausedNames: () => string[],
): Database.Transaction<(req: ClaimRequest, token: string) => ClaimResult> {
  const claimReady = namesStatement(db, sql('claim-ready'));
  const claimUnique = db.prepare(sql('claim-unique'));
  const groupedAny = db.prepare(sql('claim-grouped-any')).pluck();
  const namesPaused = db.prepare(sql('limits-names-paused')).raw();
  const limited = createLimitedClaim(db);
  /** The statements a claim rule's values are written into, prepared once per rule (as literals: see claim-lease.sql). */
  const claimWrites = new Map<string, { lease: Database.Statement; history: Database.Statement }>();
  const claimWritesFor = (rule: ClaimRule) => {
    const key = `${rule.from}\u0000${rule.to}\u0000${rule.attempts}\u0000${rule.event}`;
    let writes = claimWrites.get(key);
    if (!writes) {
      writes = {
        lease: db.prepare(withClaimRule(sql('claim-lease'), rule)),
        history: db.prepare(withClaimRule(sql('insert-claim-history'), rule)),
      };
      claimWrites.set(key, writes);
    }
    return writes;
  };

  const claimTx = db.transaction((req: ClaimRequest, token: string): ClaimResult => {
    const open = withoutPaused(req.names, pausedNames());
    if (open.length === 0) return { jobs: [] };
    // Names a handler's RateLimitedError paused (until when: the loop comes back then).
    const rateLimited = namesPaused.all({ now: rateTerms(req).now }) as Array<[string, number]>;
    const { names, pauseEnds } = withoutRatePaused(open, rateLimited);
    let heldBack: HeldBack | undefined = pauseEnds === null ? undefined : { until: pauseEnds };
    const short = (jobs: LeasedJob[]): ClaimResult => (heldBack && jobs.length < req.limit ? { jobs, heldBack } : { jobs });
    if (names.length === 0) return short([]);
    indexNewJobs();
    const writes = claimWritesFor(req.rule);
    let rows: ReadyRow[];
    let rated: ReadonlySet<number> | undefined;
    if (names.some((n) => hasNameLimit(req.limits?.get(n))) || groupedAny.get() !== undefined) {
      const selection = limited(req, names, pauseEnds);
      rows = selection.take;
      heldBack = selection.heldBack;
      rated = selection.rated;
    } else {
      rows = claimReady.all(names, { now: req.now, limit: req.limit }) as ReadyRow[];
    }
    if (rows.length === 0) return short([]);
    const { rule } = req;
    const lockedUntil = req.now + req.leaseMs;
    const claim = { state: rule.to, attempts: rule.attempts, owner: req.owner, token, lockedUntil, now: req.now };
    const out: LeasedJob[] = new Array(rows.length);
    const ids: number[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      ids[i] = rows[i]!.id;
      out[i] = toLeasedRecord(rows[i]!, claim);
      if (req.startWithinMs !== undefined && rated?.has(ids[i]!)) out[i]!.startBy = req.now + req.startWithinMs;
    }
    const idList = JSON.stringify(ids);
    const leased = writes.lease.run({ ids: idList, owner: req.owner, token, lockedUntil, now: req.now }).changes;
    // The write lock is held since the SELECT: nothing can have moved these rows.
    if (leased !== rows.length) throw new DatabaseError('LJ_ERR_DATABASE', `claim leased ${leased} of the ${rows.length} jobs it read`);
    // Spans shorter than 'active' end at the claim.
    if (rows.some((r) => (r.unique_span ?? UniqueSpan.active) < UniqueSpan.active)) claimUnique.run({ ids: idList });
    if (recordHistory) writes.history.run({ ids: idList, at: req.now, owner: req.owner, token });
    return short(out);
  });
  return claimTx;
}

