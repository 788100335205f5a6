/**
 * transition(): compare-and-set moves, all in one transaction. A request
 * changes its job only while the job is still at the `version` the request
 * was decided on (in `from` under `token`), so a worker that lost its lease
 * cannot settle and a decision made on an old read never lands. A purge (retention 0) deletes the
 * job instead, keeping its outcome and its history (purge.ts), unless the job's throttle window is
 * still open: then it is moved as asked (the window lives in its row). A flow child's parent is settled in the same transaction.
 */
import type Database from 'better-sqlite3';
import type { TransitionRequest, TransitionResult } from '../store.js';
import { startsFreshRun, transitionSet } from '../transition-set.js';
import type { SqliteFlows } from './flows.js';
import { positional } from './positional.js';
import type { Purge } from './purge.js';
import { sql } from './sql.js';

export interface TransitionDeps {
  purge: Purge;
  flows: SqliteFlows;
  /** Record each transition in `job_history`. */
  recordHistory: boolean;
  /** Every delete runs it first (sqlite-store.ts). */
  indexNewJobs(): void;
}

export function createTransition(db: Database.Database, deps: TransitionDeps): Database.Transaction<(reqs: readonly TransitionRequest[]) => TransitionResult> {
  const { purge, flows, recordHistory, indexNewJobs } = deps;
  const s = {
    // The hot statements bind positionally from their names (positional.ts).
    transition: positional(db, sql('transition', { set: transitionSet((name) => `@${name}`) })),
    history: positional(db, sql('insert-history')),
    updateFields: db.prepare(sql('update-fields')),
    clearSteps: db.prepare(sql('purge-steps')),
  };

  return db.transaction((reqs: readonly TransitionRequest[]): TransitionResult => {
    const purging = reqs.some((t) => t.purge) ? purge.begin() : undefined;
    if (purging) indexNewJobs();
    const moved = reqs.map(move);
    // A flow child's parent hears of it in this same transaction.
    const parentMoves = reqs.some((t) => t.flow) ? flows.settleParents(reqs, moved) : reqs.map(() => []);
    purging?.finish();
    return { moved, parentMoves };

    function move(t: TransitionRequest): boolean {
      if (t.purge && purging!.job(t, { state: t.to, result: t.result, lastError: t.lastError ?? null })) {
        if (recordHistory) recordMove(t);
        return true;
      }
      // Not deleted: the compare-and-set misses here too, or the job's throttle window is still open and it is moved instead.
      const changed =
        s.transition.run({
          id: t.id,
          version: t.version,
          from: t.from,
          token: t.token,
          expiredBy: t.expiredBy ?? null,
          to: t.to,
          attempts: t.attempts,
          lastError: t.lastError ? JSON.stringify(t.lastError) : null,
          ctx: t.ctx ? JSON.stringify(t.ctx) : null,
          runAt: t.runAt ?? null,
          result: t.result ?? null,
          uniqueNeed: t.uniqueNeed ?? 0,
          keepsHold: t.keepsHold === true ? 1 : 0,
          at: t.at,
        }).changes === 1;
      if (changed && t.set) s.updateFields.run({ id: t.id, payload: t.set.payload ?? null, priority: t.set.priority ?? null });
      if (changed && startsFreshRun(t.event)) s.clearSteps.run({ id: t.id });
      if (changed && recordHistory) recordMove(t);
      return changed;
    }

    function recordMove(t: TransitionRequest): void {
      s.history.run({
        id: t.id,
        from: t.from,
        to: t.to,
        event: t.event,
        candidate: t.candidate ?? null,
        at: t.at,
        workerId: t.workerId ?? null,
        token: t.token,
        error: t.error ? JSON.stringify(t.error) : null,
      });
    }
  });
}
