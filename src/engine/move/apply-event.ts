/**
 * The one path by which a job changes state after it was created (the claim
 * aside, which is one SQL statement checked against the machine at start-up):
 * the job's machine decides the next state and context, and the store writes
 * exactly that with a compare-and-set on the version the decision was made
 * on. Then the change is announced.
 *
 * A compare-and-set that misses means the job moved on after it was read
 * (another process, or another path of this one). The decision is then
 * dropped: it was made on facts that no longer hold. A caller whose intent
 * survives the move (a user's cancel, a worker's outcome while its lease
 * still holds) asks for `again`: the job is read afresh and the machine
 * decides anew on what it finds, a few times at most.
 */
import { JobEventType, JobState, RUNTIME_EVENTS, type JobEvent } from '../../../machines/job.machine.js';
import type { ErrorInfo } from '../../../machines/policy.js';
import type { Clock } from '../../lib/clock.js';
import { MAX_DATE_MS } from '../../lib/duration.js';
import type { Commit } from './commit.js';
import { fromContext, toContext, type MachineRegistry } from '../core/machine-registry.js';
import type { JobRecord, TransitionRequest } from '../../store/store.js';
import type { ApplyEvent, ApplyExtra, ApplyResult, ApplyTarget, MachineEvent, TransitionNotice } from '../core/moves.js';
import { uniqueNeed } from '../core/unique.js';
import type { SharedTime } from '../core/shared-time.js';


/** Fresh reads (and decisions on them) after missed compare-and-sets, at most: each miss follows another writer's commit. */
const AGAIN_AT_MOST = 8;



export interface ApplyDeps {
  registry: MachineRegistry;
  /** True when a job of this name is deleted by the move into this state (retention 0), in the same transaction. */
  deletesAtOnce?: (name: string, state: string) => boolean;
  commit: Commit;
  /** Reads a job afresh (after a missed compare-and-set, for a caller that asked `again`). */
  read(id: number): Promise<JobRecord | undefined>;
  clock: Clock;
  /** The database's clock: a purge keeps a job whose throttle window is still open on it (TransitionRequest `throttleAt`). */
  time: Pick<SharedTime, 'now'>;
  /** Called after a transition committed. */
  onTransition(notice: TransitionNotice): void;
}




export function createApplyEvent(deps: ApplyDeps): ApplyEvent {
  const applyOnce = async (job: ApplyTarget, event: JobEvent | MachineEvent, extra: ApplyExtra | undefined): Promise<ApplyResult> => {
    const machine = deps.registry.forJob(job.name, job.retry);
    const step = machine.next(job.state, toContext(job.attempts, job.lastError, job.ctx), event);
    if (!step) return { accepted: false };
    const at = deps.clock.now();
    const cols = fromContext(step.context);
    // A delayed state is due when its delay runs out; a job back in pending is due now.
    // `extra.runAt`: a job released for later (a RateLimitedError).
    // A LIFO job (its run time its place in line, core/lifo.ts) keeps its place when handed back unstarted or
    // when an update leaves its run time alone; any other way back to pending makes it an ordinary job.
    const keepsPlace = job.runAt !== undefined && job.runAt < 0 && (event.type === JobEventType.release || event.type === JobEventType.update) && (extra?.runAt === undefined || extra.runAt === job.runAt);
    // A delay past the last instant a Date holds (a wait with no timeout) ends there: the job reads back as a date.
    const runAt = step.delayed ? Math.min(at + step.delayed.delay, MAX_DATE_MS) : step.state === JobState.pending ? (keepsPlace ? job.runAt : Math.max(at, extra?.runAt ?? at)) : undefined;
    const error = (event as { error?: ErrorInfo }).error ?? null;
    const request: TransitionRequest = {
      id: job.id,
      version: job.version,
      from: job.state,
      token: job.leaseToken,
      to: step.state,
      event: event.type,
      at,
      attempts: cols.attempts,
      lastError: cols.lastError,
      ctx: cols.ctx,
      error,
      workerId: extra?.workerId ?? null,
      // The key is given back in the same write that leaves the states it guards.
      uniqueNeed: uniqueNeed({ initial: machine.initial.state, claimed: deps.registry.claimRule.to, finalStates: machine.finalStates }, step.state),
    };
    if (runAt !== undefined) request.runAt = runAt;
    if (extra?.expiredBy !== undefined) request.expiredBy = extra.expiredBy;
    // A runtime event (a run's outcome, a lease's expiry, a claim's hand-back) ends the job's run; a
    // caller's event (a cancel, a custom event) is not the run's: the run keeps the job as its hold.
    const endsRun = RUNTIME_EVENTS.includes(event.type);
    if (!endsRun && job.leaseToken !== null) request.keepsHold = true;
    if (step.candidate !== undefined) request.candidate = step.candidate;
    if (extra?.result !== undefined) request.result = extra.result;
    if (extra?.set !== undefined) request.set = extra.set;
    // A job a run still holds keeps its row until the run gives it back (the release applies retention then).
    if (deps.deletesAtOnce?.(job.name, step.state) === true && (endsRun || job.leaseToken === null)) {
      // The database's clock judges a throttle window. Not read (a first measure in an outage): the job
      // is moved, not deleted, and the retention loop deletes it later; the move itself is not lost.
      const throttleAt = await deps.time.now().then(
        (t) => t.lo,
        () => undefined,
      );
      if (throttleAt !== undefined) {
        request.purge = true;
        request.throttleAt = throttleAt;
      }
    }
    // A flow child that finishes (or is taken back from finished) moves its parent's counts in the same write.
    const flowRule = deps.registry.flowRule;
    if (job.parentId != null && flowRule.finished.includes(job.state) !== flowRule.finished.includes(step.state)) {
      request.flow = { rule: flowRule, parentId: job.parentId, name: job.name };
    }
    const { committed, parentMoves } = await deps.commit(request, extra?.retryUnavailable === true);
    if (committed) {
      const notice: TransitionNotice = { job: { id: job.id, name: job.name }, from: job.state, to: step.state, event: event.type, at, attempts: cols.attempts, attemptsBefore: job.attempts, error };
      if (extra?.workerId) notice.workerId = extra.workerId;
      if (runAt !== undefined) notice.runAt = runAt;
      deps.onTransition(notice);
      for (const m of parentMoves) {
        const moved: TransitionNotice = { job: { id: m.id, name: m.name }, from: m.from, to: m.to, event: m.event, at: m.at, attempts: m.attempts, error: m.error };
        if (m.to === JobState.pending) moved.runAt = m.at;
        deps.onTransition(moved);
      }
    }
    return { accepted: true, committed, to: step.state, attempts: cols.attempts, runAt, from: job.state };
  };

  return async (job, event, extra) => {
    let r = await applyOnce(job, event, extra);
    for (let tries = 1; r.accepted && !r.committed && extra?.again && tries < AGAIN_AT_MOST; tries++) {
      const fresh = await deps.read(job.id);
      if (!fresh || !extra.again(fresh)) return r;
      r = await applyOnce(fresh, event, extra);
    }
    return r;
  };
}
