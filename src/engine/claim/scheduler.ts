/**
 * The claim loop, as one RxJS stream:
 *
 *   wake$ (local enqueue) ∪ freed$ (a worker went idle) ∪ changes$ (another
 *   process committed: the store's hint or a poll, confirmed by PRAGMA
 *   data_version) ∪ due$ (timer to the next due
 *   job) ∪ idle$ (a slow poll that backs off)
 *     ──takeUntil(stop$)──exhaustMap──► loop: promote due jobs, claim(free slots)
 *
 * Pull, not push: each pass claims at most `freeSlots()` jobs (the idle
 * workers plus the room left in the consumer's bounded prefetch buffer), so
 * nothing buffers past that bound. `exhaustMap` ignores triggers while a pass runs;
 * a `dirty` flag set before it makes the pass go round again, so a trigger
 * that arrives mid-pass is never lost.
 */
import {
  BehaviorSubject,
  defer,
  distinctUntilChanged,
  EMPTY,
  exhaustMap,
  finalize,
  filter,
  merge,
  Observable,
  of,
  Subject,
  switchMap,
  takeUntil,
  tap,
  type Subscription,
} from 'rxjs';
import type { Clock } from '../../lib/clock.js';

/** One emission after `ms` on the clock (clamped by it: a far-off due time fires early and is looked at again). */
export function clockTimer(clock: Clock, ms: number): Observable<void> {
  return new Observable<void>((subscriber) => {
    const handle = clock.setTimeout(() => {
      subscriber.next();
      subscriber.complete();
    }, ms);
    return () => clock.clearTimeout(handle);
  });
}

/** An emission every `ms` on the clock. */
export function clockInterval(clock: Clock, ms: number): Observable<void> {
  return new Observable<void>((subscriber) => {
    let handle = clock.setTimeout(function tick() {
      handle = clock.setTimeout(tick, ms);
      subscriber.next();
    }, ms);
    return () => clock.clearTimeout(handle);
  });
}

/**
 * How long after a promotion the loop looks for due jobs again at the
 * latest. A pass reads the next due time only once it runs out of jobs: under
 * a backlog that never runs out, a job another process left in a delayed
 * state (a retry, a sleep) would otherwise wait for the backlog to drain.
 */
export const PROMOTE_RECHECK_MS = 1000;

export interface SchedulerDeps {
  /** Time and timers (a virtual clock in tests). */
  clock: Clock;
  freeSlots(): number;
  /** Claims up to `limit` jobs and hands them to workers; returns how many. */
  claim(limit: number): Promise<number>;
  /** Delivers due delayed events (e.g. failed → pending when a retry is due). */
  promoteDue(now: number): Promise<void>;
  /** The earliest time a handled job becomes due (may be past: due but not yet promoted), or null. */
  nextDueAt(): Promise<number | null>;
  /** True when another process committed since the last call. */
  externalChange(): boolean;
  /**
   * Hints that another process committed, sooner than the poll (confirmed by
   * `externalChange()` like a poll tick). Subscribed only while the last pass
   * found nothing more to claim.
   */
  changed$?: Observable<void>;
  freed$: Observable<void>;
  /** A pass failed; the idle poll tries again in `retryInMs`, backing off while passes keep failing. */
  onError(err: unknown, retryInMs: number): void;
  /** A pass succeeded after failed ones. */
  onRecovered?(): void;
  /** A pass ended: jobs claimed, the free slots at its last look, the due timer it left armed (a test signal). */
  onPassEnd?(pass: { claimed: number; free: number; nextLookAt: number | null; failed: boolean }): void;
  /** How often to look for other processes' commits, ms. */
  pollMs: number;
  idleMinMs: number;
  idleMaxMs: number;
}

export interface Scheduler {
  start(): void;
  /** Stops claiming; resolves once the pass under way (if any) has ended. */
  stop(): Promise<void>;
  /** A job became ready in this process. */
  wake(): void;
  /** A job of this process becomes due at `at` (a retry, a delayed job). */
  noteDue(at: number): void;
}

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const wake$ = new Subject<void>();
  const stop$ = new Subject<void>();
  const dueAt$ = new Subject<number | null>();
  const idleDelay$ = new BehaviorSubject<number>(deps.idleMinMs);
  let dirty = true;
  let stopped = false;
  let promoteAt = 0; // earliest time a delayed state may come due; 0 = look now
  let pass: Promise<void> = Promise.resolve();
  let subscription: Subscription | undefined;
  let armedAt: number | null = null; // the due timer's target
  let failures = 0; // passes failed in a row (a database out of reach)

  const arm = (at: number | null) => {
    armedAt = at;
    dueAt$.next(at);
  };

  const due$ = dueAt$.pipe(
    switchMap((at) => (at === null ? EMPTY : clockTimer(deps.clock, at - deps.clock.now()))),
    tap(() => {
      armedAt = null;
      // Its time came: look for due jobs now. A pass that promoted before it and then
      // found no free slot never read the next due time again (promoteAt stayed at infinity).
      promoteAt = Math.min(promoteAt, deps.clock.now());
    }),
  );
  const idle$ = idleDelay$.pipe(switchMap((ms) => clockTimer(deps.clock, ms)));
  // The store's hints wake only a loop that ran out of jobs (set by the pass):
  // one that claimed a full batch comes back by itself (freed$), and a watch
  // costs every write to the file. Once subscribed, one look at once: a commit
  // may have landed between the last claim and the subscription.
  const outOfJobs$ = new BehaviorSubject(false);
  const hints$ = outOfJobs$.pipe(
    distinctUntilChanged(),
    switchMap((out) => (out && deps.changed$ ? merge(deps.changed$, of(undefined)) : EMPTY)),
  );
  const changes$ = merge(clockInterval(deps.clock, deps.pollMs), hints$).pipe(filter(() => deps.externalChange()));

  const setIdleDelay = (ms: number) => {
    if (ms !== idleDelay$.value) idleDelay$.next(ms);
  };

  const runPass = async (): Promise<void> => {
    let claimed = 0;
    let free = 0;
    let promotedAt = Number.NEGATIVE_INFINITY; // the time of this pass's last promotion
    try {
      // Go round while triggers keep arriving: exhaustMap drops them during a pass.
      while (dirty && !stopped) {
        let drained = false;
        while (dirty && !stopped) {
          dirty = false;
          const now = deps.clock.now();
          if (now >= promoteAt) {
            // Until a read says when the next one is due (the drained pass below, a due timer, noteDue).
            promoteAt = now + PROMOTE_RECHECK_MS;
            await deps.promoteDue(now);
            promotedAt = now;
          }
          free = deps.freeSlots();
          if (free === 0) {
            // freed$ starts the next pass: jobs may be waiting for a slot (hints do not matter meanwhile).
            outOfJobs$.next(false);
            break;
          }
          const n = await deps.claim(free);
          claimed += n;
          if (n === free) {
            dirty = true;
            outOfJobs$.next(false);
          } else drained = true;
        }
        if (drained && !stopped) {
          // Nothing more is ready: sleep until the next due job. One already due that
          // this pass has not promoted since its time came is promoted now (an earlier
          // promotion, then a pass that found every slot busy, never read its time);
          // one still due after that is retried a moment later, never spun on.
          const now = deps.clock.now();
          const at = await deps.nextDueAt();
          if (at !== null) promoteAt = Math.min(promoteAt, at);
          if (at !== null && at <= now && promotedAt < at) dirty = true;
          else arm(at === null ? null : Math.max(at, now + 1));
          outOfJobs$.next(true);
        }
      }
      setIdleDelay(claimed > 0 ? deps.idleMinMs : Math.min(deps.idleMaxMs, idleDelay$.value * 2));
      if (failures > 0) {
        failures = 0;
        deps.onRecovered?.();
      }
      deps.onPassEnd?.({ claimed, free, nextLookAt: armedAt, failed: false });
    } catch (err) {
      // Back off: a server that is down fails every pass at once, and the
      // other triggers fall silent while nothing commits, so the idle poll
      // paces the tries.
      failures++;
      const retryInMs = Math.min(deps.idleMaxMs, deps.idleMinMs * 2 ** Math.min(failures - 1, 20));
      deps.onError(err, retryInMs);
      promoteAt = 0;
      setIdleDelay(retryInMs);
      deps.onPassEnd?.({ claimed, free, nextLookAt: null, failed: true });
    }
  };

  return {
    start() {
      if (subscription) return;
      subscription = merge(
        wake$,
        // A worker freed (or a buffer run low) once the last pass found nothing more: no claim can
        // find more either. New work comes with its own trigger (wake, a store hint, a due time, the
        // idle poll), and a pass on every freed worker of an idle queue was a claim and a due-time
        // read each, which the next job's claim then waited behind.
        deps.freed$.pipe(filter(() => !outOfJobs$.value)),
        changes$,
        due$,
        idle$.pipe(tap(() => idleDelay$.next(idleDelay$.value))),
      )
        .pipe(
          tap(() => (dirty = true)),
          takeUntil(stop$),
          exhaustMap(() =>
            defer(() => (pass = runPass())).pipe(
              // A trigger between the pass's end and exhaustMap hearing of it
              // is dropped there; its `dirty` mark survives: go round again.
              finalize(() => {
                if (dirty && !stopped) queueMicrotask(() => wake$.next());
              }),
            ),
          ),
        )
        .subscribe({ error: (err: unknown) => deps.onError(err, deps.idleMinMs) });
      wake$.next();
    },
    async stop() {
      stopped = true;
      stop$.next();
      subscription?.unsubscribe();
      await pass;
    },
    wake: () => wake$.next(),
    noteDue(at) {
      promoteAt = Math.min(promoteAt, at);
      // A pass under way may be about to re-arm the timer from an answer read
      // before this due time existed: make it go round and read again.
      dirty = true;
      if (armedAt === null || at < armedAt) arm(at);
    },
  };
}
