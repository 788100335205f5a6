/**
 * Manual fetching (BullMQ's `worker.getNextJob` with `job.moveToCompleted`
 * and `moveToFailed`): take one job under a lease, then finish it yourself,
 * for a loop of your own. A taken job is claimed as the pool claims (limits,
 * pauses, priorities; a claim recorded in the history), and its outcome goes
 * through the job's machine under the same compare-and-set: it lands only
 * while the lease is still the taker's and the job still in the claimed
 * state. A job moved on meanwhile (cancelled, its lease run out and taken
 * by another) is refused with LeaseLostError, and the lease it held as a
 * hold is given back (as by a heartbeat that finds it lost). A taker that
 * dies leaves its lease to run out; a `take` of the name a second or more
 * later takes it back (and gives back a hold a dead taker left on a
 * cancelled job), and so does a started queue running the name, at its next
 * lease sweep. Only jobs the queue defines are taken.
 */
import { JobEventType } from '../../../machines/job.machine.js';
import { LeaseLostError, ValidationError } from '../../errors.js';
import type { JobRecord } from '../../store/store.js';
import { checkInteger, checkString, rejectUnknownOptions } from '../../lib/validate.js';
import { claimTerms, startWithinMs } from '../claim/rate-starts.js';
import type { WorkerEngine } from '../core/engine.js';
import { toJob, type Job } from '../core/job-view.js';
import type { ApplyResult } from '../core/moves.js';
import { expireLeases, promoteDue, releaseExpiredHolds } from '../move/sweeps.js';
import { serializeResult, storedError, toErrorInfo } from '../run/job-runner.js';

export interface TakeOptions {
  /**
   * The job names to take from, each defined by this queue (`defineJob`: its
   * limits, machine and retry policy decide the claim and the outcome; its
   * handler runs only if the queue is started). Default: every job it defines.
   */
  names?: readonly string[];
  /** How long the lease lasts, ms, unless renewed (`heartbeat`). Default: the queue's `lease`. */
  lease?: number;
}

/** A job taken under a lease: finish it with `complete` or `fail`, keep it with `heartbeat`. */
export type TakenJob<P = unknown> = Job<P> & {
  /** The lease's token: what `complete`, `fail` and `heartbeat` name the lease by. */
  token: string;
  /** When the lease runs out unless renewed. */
  lockedUntil: Date;
};

/** What names a lease: a taken job, or its id and token. */
export interface LeaseRef {
  id: number;
  token: string;
}

export interface ManualJobs {
  take(options?: TakeOptions): Promise<TakenJob | null>;
  complete(lease: LeaseRef, result?: unknown): Promise<Job>;
  fail(lease: LeaseRef, error: unknown): Promise<Job>;
  heartbeat(lease: LeaseRef, options?: { lease?: number }): Promise<boolean>;
}

/** How often `take` does a started queue's sweeps itself, at most: a loop taking jobs one by one pays for them once a second. */
export const TAKE_SWEEP_MS = 1000;

/** `started`: whether the queue runs its own pool, whose sweeps (and its runs' renewals) take care of leases and due jobs. */
export function createManualJobs(engine: WorkerEngine, o: { ownerId: string; leaseMs: number; open: () => void; started: () => boolean; upkeep: () => void }): ManualJobs {
  const { clock, registry } = engine;
  const workerId = `${o.ownerId}/manual`;
  let sweptAt = Number.NEGATIVE_INFINITY;
  /**
   * A queue that only takes by hand does what a started queue's sweeps do, for the names it takes, at most once
   * a second: holds that ran out (a taker that died after its job was cancelled) are given back, leases that ran out
   * are taken back, and retries (and other delayed states) whose time has come become due. A started queue's own
   * sweeps do this already, and know which leases its late-renewing runs still hold.
   */
  const sweep = async (names: readonly string[]) => {
    const now = clock.now();
    if (o.started() || now - sweptAt < TAKE_SWEEP_MS) return;
    sweptAt = now;
    // Retention's pass, as a started queue runs it (it goes on until the queue stops or closes).
    o.upkeep();
    // The limits another process changed while it runs (a started queue reads them itself, each second).
    await engine.refreshLimits();
    await releaseExpiredHolds(engine, now, { renew: async () => undefined, runs: () => false });
    await expireLeases(engine, names, now, { holds: () => false, renew: async () => undefined, abort: () => undefined });
    await promoteDue(engine, names, now);
  };
  const checkLease = (what: string, value: unknown, fallback: number) => (value === undefined ? fallback : checkInteger(`${what} lease`, value, 100, 24 * 3_600_000));
  const checkRef = (what: string, lease: unknown): LeaseRef => {
    if (typeof lease !== 'object' || lease === null) throw new ValidationError(`${what}: pass the taken job, or { id, token }`);
    const { id, token } = lease as Partial<LeaseRef>;
    checkInteger(`${what} id`, id, 1);
    checkString(`${what} token`, token, 200);
    return { id: id!, token: token! };
  };
  /** The job as it is now, while it is still taken under this lease; else its hold is given back and the call refused. */
  const held = async (ref: LeaseRef): Promise<JobRecord> => {
    const job = await engine.worker.get(ref.id);
    if (job && job.leaseToken === ref.token && job.state === registry.claimRule.to) return job;
    return lost(ref);
  };
  const lost = async (ref: LeaseRef): Promise<never> => {
    // A job moved on without the taker keeps its lease as the taker's hold (run-holds.ts): given back now.
    await engine.releaseHold(ref.id, ref.token);
    throw new LeaseLostError(ref.id);
  };
  /** The outcome's move: lands while the lease holds; the machine decides again on a job a custom edge kept in the claimed state. */
  const finish = async (ref: LeaseRef, event: Parameters<WorkerEngine['apply']>[1], extra: { result?: string } = {}): Promise<Job> => {
    const job = await held(ref);
    const stillOurs = (fresh: JobRecord) => fresh.leaseToken === ref.token && fresh.state === registry.claimRule.to;
    const r: ApplyResult = await engine.apply(job, event, { ...extra, workerId, again: stillOurs });
    if (!(r.accepted && r.committed)) return lost(ref);
    const after = await engine.worker.get(ref.id);
    if (after) return toJob(after);
    // Deleted as it finished (retention 0): the job as it ended.
    const lastError = (event as { error?: JobRecord['lastError'] }).error ?? job.lastError;
    return toJob({ ...job, state: r.to, attempts: r.attempts, result: extra.result ?? job.result, lastError, updatedAt: clock.now(), leaseOwner: null, leaseToken: null, lockedUntil: null });
  };

  return {
    async take(options = {}) {
      o.open();
      rejectUnknownOptions('take options', options, ['names', 'lease']);
      const names = options.names === undefined ? [...engine.definitions.keys()] : options.names;
      if (!Array.isArray(names) || names.length === 0) throw new ValidationError('take: give the queue the jobs to take (defineJob), or name some (names)');
      for (const name of names) {
        checkString('take names', name, 200);
        // Only a definition knows the job's limits, machine and retry policy: a claim or an outcome without them would break them.
        if (!engine.definitions.has(name)) throw new ValidationError(`take: job "${name.slice(0, 200)}" is not defined by this queue (defineJob): its limits, machine and retry policy are in its definition`);
      }
      const leaseMs = checkLease('take', options.lease, o.leaseMs);
      await sweep(names);
      const terms = await claimTerms(engine.time, engine.limits, { startWithin: startWithinMs(engine.limits), ahead: false, startNow: 1 });
      // The clock read after the sweep: a retry it brought due is due from the moment its move was made.
      const { jobs } = await engine.worker.claim({ names, limit: 1, owner: workerId, leaseMs, now: clock.now(), rule: registry.claimRule, ...terms });
      const [job, ...more] = jobs;
      // More than one: claims whose answers an outage lost, taken back (store/postgres/claim.ts); handed back
      // unstarted, as a stopping pool gives back what it never started (a job moved on meanwhile: its hold).
      for (const extra of more) {
        const r = await engine.apply(extra, { type: JobEventType.release }, { workerId, again: (fresh) => fresh.leaseToken === extra.leaseToken && fresh.state === registry.claimRule.to });
        if (!(r.accepted && r.committed)) await engine.releaseHold(extra.id, extra.leaseToken);
      }
      if (!job) return null;
      return { ...toJob(job), token: job.leaseToken, lockedUntil: new Date(job.lockedUntil) };
    },
    async complete(lease, result) {
      o.open();
      const ref = checkRef('complete', lease);
      const text = serializeResult(result);
      return finish(ref, { type: JobEventType.complete }, text === undefined ? {} : { result: text });
    },
    async fail(lease, error) {
      o.open();
      const ref = checkRef('fail', lease);
      // The error decides as a handler's would: UnrecoverableError goes dead, RetryLaterError comes back later, the rest by the retry policy.
      return finish(ref, { type: JobEventType.fail, error: storedError(toErrorInfo(error)), random: Math.random() });
    },
    async heartbeat(lease, options = {}) {
      o.open();
      const ref = checkRef('heartbeat', lease);
      rejectUnknownOptions('heartbeat options', options, ['lease']);
      const leaseMs = checkLease('heartbeat', options.lease, o.leaseMs);
      if (await engine.worker.heartbeat(ref.id, ref.token, clock.now() + leaseMs)) return true;
      // Lost: a job moved on without the taker keeps its lease as the taker's hold, given back now (not renewed
      // until the taker ends, which would keep a job run again meanwhile from being claimed).
      await engine.releaseHold(ref.id, ref.token);
      return false;
    },
  };
}
