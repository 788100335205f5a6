/**
 * A claim, in one BEGIN IMMEDIATE transaction (the caller runs it with
 * `.immediate()`): index jobs committed on their own, read the ready jobs in
 * claim order (claim-ready.sql), lease them by id (claim-lease.sql) and record
 * the claim in the history, as the machine's claim rule says. Paused names
 * are read inside the same transaction, so a pause committed by any process
 * holds from the next claim on.
 */
import type Database from 'better-sqlite3';
import { DatabaseError } from '../../errors.js';
import { withoutPaused } from '../paused.js';
import type { ClaimRequest, ClaimRule, LeasedJob } from '../store.js';
import { namesStatement } from './names-statement.js';
import { toLeasedRecord, type ReadyRow } from './rows.js';
import { sql, withClaimRule } from './sql.js';

export function createClaim(
  db: Database.Database,
  indexNewJobs: () => void,
  recordHistory: boolean,
  pausedNames: () => string[],
): Database.Transaction<(req: ClaimRequest, token: string) => LeasedJob[]> {
  const claimReady = namesStatement(db, sql('claim-ready'));
  const claimUnique = db.prepare(sql('claim-unique'));
  /** The claim's two writes, prepared once per claim rule (its values are literals in the SQL). */
  const claimWrites = new Map<string, { lease: Database.Statement; history: Database.Statement }>();
  const claimWritesFor = (rule: ClaimRule) => {
    const key = `${rule.from}\u0000${rule.to}\u0000${rule.attempts}\u0000${rule.event}`;
    let writes = claimWrites.get(key);
    if (!writes) {
      writes = { lease: db.prepare(withClaimRule(sql('claim-lease'), rule)), history: db.prepare(withClaimRule(sql('insert-claim-history'), rule)) };
      claimWrites.set(key, writes);
    }
    return writes;
  };

  const claimTx = db.transaction((req: ClaimRequest, token: string): LeasedJob[] => {
    const names = withoutPaused(req.names, pausedNames());
    if (names.length === 0) return [];
    indexNewJobs();
    const rows = claimReady.all(names, { now: req.now, limit: req.limit }) as ReadyRow[];
    if (rows.length === 0) return [];
    const { rule } = req;
    const lockedUntil = req.now + req.leaseMs;
    const claim = { state: rule.to, attempts: rule.attempts, owner: req.owner, token, lockedUntil, now: req.now };
    const out: LeasedJob[] = new Array(rows.length);
    const ids: number[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      ids[i] = rows[i]!.id;
      out[i] = toLeasedRecord(rows[i]!, claim);
    }
    const idList = JSON.stringify(ids);
    const writes = claimWritesFor(rule);
    const leased = writes.lease.run({ ids: idList, owner: req.owner, token, lockedUntil, now: req.now }).changes;
    // The write lock is held since the SELECT: nothing can have moved these rows.
    if (leased !== rows.length) throw new DatabaseError('LJ_ERR_DATABASE', `claim leased ${leased} of the ${rows.length} jobs it read`);
    // Spans shorter than 'active' (engine/unique.ts UniqueSpan) end at the claim.
    if (rows.some((r) => (r.unique_span ?? 2) < 2)) claimUnique.run({ ids: idList });
    if (recordHistory) writes.history.run({ ids: idList, at: req.now, owner: req.owner, token });
    return out;
  });
  return claimTx;
}

