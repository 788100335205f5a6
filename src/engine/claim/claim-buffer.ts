/**
 * The prefetch buffer: jobs this process claimed ahead of its idle workers,
 * under the claim's lease, in claim order. The claim loop (scheduler.ts) asks
 * it how much to claim and hands it what each claim brought; the worker pool
 * takes jobs from it. It is always in one of these modes:
 *
 * - STARTING: before the first claim. Nothing waits, nothing was asked.
 * - FILLING: a claim is on its way (one at a time: the loop's exhaustMap).
 *   A worker that finds nothing to take meanwhile marks it run dry: if the
 *   claim comes back full, the buffer was smaller than the backlog and the
 *   workers' pace, and its size grows fourfold (prefetch-size.ts `starved`).
 * - EMPTY: nothing waits and no claim is on its way. The loop's next pass
 *   claims for the idle workers and the whole buffer.
 * - STOCKED: jobs wait above the low-water mark (a quarter of the target
 *   size): the loop claims nothing (`freeSlots` 0). A take that brings it
 *   down to the mark asks for a refill, once (`hungry$`), and it is LOW.
 * - LOW: at or below the mark, jobs still waiting: the loop's next pass
 *   claims up to the target, so the workers never run dry on a claim's
 *   round trip.
 * - STOPPED: `stop()` took every job still waiting (each goes back to
 *   pending, no attempt spent); nothing is claimed or taken any more.
 *
 * Beside the mode, `heldBack` says that the last claim left due jobs behind
 * for a limit (a running job of their group, a rate-limit token, a pause):
 * the loop comes back for them then (`dueBack`), not on a timer of its own.
 *
 * Jobs leave it by a take, or are handed back (each `buffer:handed-back`):
 * past the horizon of work the workers reach at their pace (`overflow`,
 * checked at each take and two horizons after each claim), past a rate-limit
 * start deadline (`late`), in a name or group a RateLimitedError paused
 * (`paused`), or at `stop()` (`stopped`); one no longer held under its lease
 * (`lost`: the start check's confirmation ahead) just leaves. A job cancelled by its
 * caller or whose lease renewal failed is dropped (`drop`).
 *
 * Every change of mode, claim and hand-back is a signal on `signals$`: tests
 * wait on them (and queue.buffer$ shows them) instead of sleeping.
 */
import { Subject, type Observable } from 'rxjs';
import type { Clock, TimerHandle } from '../../lib/clock.js';
import type { ClaimResult, HeldBack, LeasedJob } from '../../store/store.js';
import { BufferMode, type BufferEvent, type HandBackReason } from '../core/events.js';
import { createPrefetchSize } from './prefetch-size.js';
import { takePaused, type RatePauses } from './rate-pauses.js';

/** How long a claim loop waits at most for a job held back by a running one to be free (see dueBack). */
export const HELD_BACK_RECHECK_MS = 100;

export interface ClaimBufferOptions {
  concurrency: number;
  /** Jobs claimed ahead of idle workers; absent: sized as the queue runs (prefetch-size.ts). */
  prefetch: number | undefined;
  /** A name has a group concurrency: the adaptive size stays small (a buffered job holds its group's slot). */
  grouped: boolean;
  clock: Clock;
  pauses: RatePauses;
  /** Whether a run of this job is alive here (a job whose previous run is still alive waits for it). */
  isRunning(jobId: number): boolean;
  /** Sends a job back to pending, no attempt spent, due at `runAt` (or as it was). */
  handBack(job: LeasedJob, why: HandBackReason, runAt?: number): void;
  /** A job whose lease the start check's confirmation found gone left the buffer (its hold, if any, is given back: run-holds.ts). */
  lost?(job: LeasedJob): void;
  /** Announces a signal (test signals; queue.buffer$). */
  signal(event: BufferEvent): void;
}

export interface ClaimBuffer {
  mode(): BufferMode;
  /** Jobs waiting. */
  size(): number;
  /** The most the buffer may hold (bounds the outcomes a process lets wait for their commit). */
  readonly max: number;
  /** How many jobs the next claim may take, with `busy` workers running: 0 while stocked. */
  freeSlots(busy: number): number;
  /** The idle workers, with `busy` running: the jobs of a claim that start at once. */
  idleWorkers(busy: number): number;
  /** A claim is on its way. */
  claiming(): void;
  /** A claim came back (or failed: `result` undefined): `asked` jobs asked for, sent at `sentAt`. */
  claimed(result: ClaimResult | undefined, asked: number, sentAt: number): void;
  /** A refill is due: the buffer fell to its low-water mark. */
  readonly hungry$: Observable<void>;
  /** The next job for a worker, or undefined. */
  take(): LeasedJob | undefined;
  /** Removes a job (cancelled, or its lease lost): the job, or undefined when it was not waiting. */
  drop(jobId: number): LeasedJob | undefined;
  /** The jobs waiting now, oldest first (a copy). */
  waiting(): readonly LeasedJob[];
  /** The jobs waiting now, oldest first: the buffer's own list, to be read at once and not kept (the start check's look ahead). */
  queued(): readonly LeasedJob[];
  /** Removes this job object, if it waits, as one whose lease is gone (`lost`). */
  lose(job: LeasedJob): void;
  /** Hands back a job taken and not started (the start check found it `late`), with its signal. */
  handBack(job: LeasedJob, why: HandBackReason, runAt?: number): void;
  /** The waiting jobs whose lease is past half its time at `now`: for renewal. */
  renewable(now: number, leaseMs: number): LeasedJob[];
  /** Hands back the waiting jobs of paused names and groups (RatePauses). */
  handBackPaused(): void;
  /** What the last claim left behind for a limit, if anything. */
  heldBack(): HeldBack | undefined;
  /** When the loop should look again for the jobs held back (with `pending` the next due job), or `pending`. */
  dueBack(pending: number | null, now: number): number | null;
  /** Stops: takes every job still waiting (to be sent back), and cancels the timers. */
  stop(): LeasedJob[];
}

export function createClaimBuffer(o: ClaimBufferOptions): ClaimBuffer {
  const { clock } = o;
  const prefetch = createPrefetchSize(o.concurrency, o.prefetch, clock.now(), o.grouped);
  const waiting: LeasedJob[] = [];
  const hungry = new Subject<void>();
  let stopped = false;
  let started = false;
  let inFlight = false;
  /** The buffer held jobs when the claim on its way was sent, and a worker found nothing to take since. */
  let fed = false;
  let ranDry = false;
  /** Set while above the low-water mark: its next fall to the mark asks for a claim, once. */
  let refillArmed = false;
  let held: HeldBack | undefined;
  let overflowCheck: TimerHandle | undefined;

  // Refill when a quarter of the target is left: each claim then takes about
  // three quarters of it in one transaction (a claim costs a commit, so small
  // top-ups of a few jobs each would cost more than the jobs they bring).
  const lowWater = () => Math.floor(prefetch.target() / 4);

  const mode = (): BufferMode => {
    if (stopped) return BufferMode.stopped;
    if (inFlight) return BufferMode.filling;
    if (!started) return BufferMode.starting;
    if (waiting.length === 0) return BufferMode.empty;
    return waiting.length > lowWater() ? BufferMode.stocked : BufferMode.low;
  };
  /** Runs `change`, then signals the mode it left, if it left one. */
  const changing = <T>(change: () => T): T => {
    const from = mode();
    const out = change();
    const to = mode();
    if (to !== from) o.signal({ type: 'buffer:mode', at: new Date(clock.now()), mode: to, from, waiting: waiting.length });
    return out;
  };
  const handedBack = (why: HandBackReason, jobs: readonly LeasedJob[], runAt?: (job: LeasedJob) => number | undefined) => {
    if (jobs.length === 0) return;
    // A lost lease is no longer this process's to give back: the job only leaves the buffer.
    if (why !== 'lost') for (const job of jobs) o.handBack(job, why, runAt?.(job));
    else for (const job of jobs) o.lost?.(job);
    o.signal({ type: 'buffer:handed-back', at: new Date(clock.now()), why, jobs: jobs.map((j) => j.id) });
  };

  /** The jobs past what the workers reach within the horizon at their pace since the claim: newest first, due as they were. */
  const handBackOverflow = () =>
    changing(() => {
      const excess = prefetch.overflow(waiting.length, clock.now());
      if (excess > 0) handedBack('overflow', waiting.splice(waiting.length - excess, excess));
    });

  const handBackPaused = () =>
    changing(() => {
      const now = clock.now();
      const paused = takePaused(waiting, o.pauses, now);
      const until = new Map(paused.map(({ job, until: end }) => [job, end]));
      handedBack(
        'paused',
        paused.map((p) => p.job),
        (job) => until.get(job),
      );
    });

  return {
    mode,
    size: () => waiting.length,
    max: prefetch.max,
    freeSlots: (busy) => (waiting.length > lowWater() ? 0 : o.concurrency + prefetch.target() - busy - waiting.length),
    idleWorkers: (busy) => Math.max(0, o.concurrency - busy - waiting.length),
    hungry$: hungry.asObservable(),
    claiming() {
      changing(() => {
        inFlight = true;
        fed = waiting.length > 0;
        ranDry = false;
      });
    },
    claimed(result, asked, sentAt) {
      const now = clock.now();
      changing(() => {
        inFlight = false;
        started = true;
        if (!result || stopped) return;
        const starved = fed && ranDry && result.jobs.length === asked;
        prefetch.claimed(now - sentAt, now, starved);
        held = result.heldBack;
        for (const job of result.jobs) waiting.push(job);
        refillArmed = waiting.length > lowWater();
        if (overflowCheck !== undefined) clock.clearTimeout(overflowCheck);
        // Its jobs still waiting a while on are looked at, even while every worker is busy.
        overflowCheck = result.jobs.length > 0 ? clock.setTimeout(handBackOverflow, prefetch.overflowCheckMs()) : undefined;
        o.signal({ type: 'buffer:claimed', at: new Date(now), asked, got: result.jobs.length, starved, heldBack: result.heldBack ?? null });
      });
      // A claim that committed before a pause of this process was written.
      if (result && !stopped) handBackPaused();
    },
    take() {
      if (stopped) return undefined;
      return changing(() => {
        for (;;) {
          // A job whose previous run is still alive here waits for it (its lease is renewed meanwhile).
          const i = waiting.length > 0 && !o.isRunning(waiting[0]!.id) ? 0 : waiting.findIndex((job) => !o.isRunning(job.id));
          if (i < 0) {
            if (inFlight && waiting.length === 0) ranDry = true;
            return undefined;
          }
          // The oldest, nearly always: shift() drops it in place, where splice() copies the array's rest.
          const job = (i === 0 ? waiting.shift() : waiting.splice(i, 1)[0]) as LeasedJob;
          if (refillArmed && waiting.length <= lowWater()) {
            refillArmed = false;
            hungry.next(); // refill before the workers run dry
          }
          prefetch.took();
          handBackOverflow();
          return job;
        }
      });
    },
    drop: (jobId) =>
      changing(() => {
        const i = waiting.findIndex((j) => j.id === jobId);
        return i >= 0 ? waiting.splice(i, 1)[0] : undefined;
      }),
    waiting: () => [...waiting],
    queued: () => waiting,
    lose: (job) =>
      changing(() => {
        // This object's lease: the same job may be back in the buffer under a newer claim.
        const k = waiting.indexOf(job);
        if (k >= 0) handedBack('lost', waiting.splice(k, 1));
      }),
    handBack: (job, why, runAt) => handedBack(why, [job], () => runAt),
    renewable: (now, leaseMs) => waiting.filter((job) => job.lockedUntil - now < leaseMs / 2),
    handBackPaused,
    heldBack: () => held,
    dueBack(pending, now) {
      if (!held) return pending;
      const back = held.until ?? now + HELD_BACK_RECHECK_MS;
      const later = pending !== null && pending > now ? pending : null;
      return later === null ? back : Math.min(later, back);
    },
    stop() {
      return changing(() => {
        stopped = true;
        if (overflowCheck !== undefined) clock.clearTimeout(overflowCheck);
        overflowCheck = undefined;
        const unstarted = waiting.splice(0);
        if (unstarted.length > 0) o.signal({ type: 'buffer:handed-back', at: new Date(clock.now()), why: 'stopped', jobs: unstarted.map((j) => j.id) });
        return unstarted;
      });
    },
  };
}
