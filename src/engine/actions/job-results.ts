/**
 * `queue.result(id)`: waits for a job to finish, whichever process runs it,
 * and hands back its result (or rejects with why it has none). Nothing polls
 * in a loop: the job is read again when this process moves it (`events$`)
 * and when another connection may have finished a job (`store.watchFinished`:
 * SQLite's WAL watch, PostgreSQL's notification). Those are hints, so one
 * slow tick (a second) reads every waited-for job as well. One watch and one
 * tick serve every waiter of the queue, and stop when none is left.
 */
import type { Observable, Subscription } from 'rxjs';
import { FINISHED_STATES, JobState } from '../../../machines/job.machine.js';
import { JobFailedError, JobNotFoundError, ValidationError, WaitTimeoutError } from '../../errors.js';
import { afterDelay, type Clock, type TimerHandle } from '../../lib/clock.js';
import type { JobOutcome, JobRecord, Store } from '../../store/store.js';
import { isTransition, type QueueEvent } from '../core/events.js';
import type { MachineRegistry } from '../core/machine-registry.js';
import { checkInteger, rejectUnknownOptions } from '../../lib/validate.js';

/** Every waited-for job is read this often too, in case a hint was missed. */
const SAFETY_TICK_MS = 1000;

export interface ResultOptions {
  /** Give up after this many ms (rejects with `WaitTimeoutError`; the job goes on). */
  timeout?: number;
  /** Give up when this aborts (rejects with its reason). */
  signal?: AbortSignal;
}

/** What a finished job's outcome is read from: its row, or what was kept of it (JobOutcome). */
type Ending = Pick<JobRecord, 'id' | 'name' | 'state' | 'retry' | 'result' | 'lastError'>;
const keptOutcome = (o: JobOutcome | undefined): Ending | undefined => (o ? { ...o, retry: null } : undefined);

export function createJobResults(deps: { store: Store; clock: Clock; registry: MachineRegistry; events$: Observable<QueueEvent>; open: () => void }) {
  const { store, clock } = deps;
  /** Each waiter's "read the job again", by job id. */
  const waiters = new Map<number, Set<() => void>>();
  let unwatch: (() => void) | undefined;
  let own: Subscription | undefined;
  let tick: TimerHandle | undefined;

  const everyWaiter = () => {
    for (const set of waiters.values()) for (const check of [...set]) check();
  };
  const armTick = () => {
    tick = clock.setTimeout(() => {
      everyWaiter();
      armTick();
    }, SAFETY_TICK_MS);
    (tick as { unref?: () => void }).unref?.();
  };
  const watching = () => {
    if (own) return;
    own = deps.events$.subscribe((e) => {
      if (isTransition(e)) for (const check of [...(waiters.get(e.job.id) ?? [])]) check();
    });
    // A store without a finished notice hears every commit in watchChanges (SQLite).
    unwatch = store.watchFinished ? store.watchFinished(everyWaiter) : store.watchChanges?.(() => everyWaiter());
    armTick();
  };
  const leave = (id: number, check: () => void) => {
    const set = waiters.get(id);
    set?.delete(check);
    if (set?.size === 0) waiters.delete(id);
    if (waiters.size > 0) return;
    own?.unsubscribe();
    own = undefined;
    unwatch?.();
    unwatch = undefined;
    if (tick !== undefined) clock.clearTimeout(tick);
    tick = undefined;
  };

  /** The job's outcome once it has finished: its result, or why it has none. */
  const outcome = (job: Ending): { ok: true; value: unknown } | { ok: false; error: Error } | undefined => {
    if (job.state === JobState.completed) return { ok: true, value: job.result === null ? undefined : (JSON.parse(job.result) as unknown) };
    if (FINISHED_STATES.includes(job.state) || deps.registry.forJob(job.name, job.retry).finalStates.has(job.state)) {
      return { ok: false, error: new JobFailedError(job.id, job.state, job.lastError) };
    }
    return undefined;
  };

  return {
    /** Reads every waited-for job now (after the queue closed: each waiter learns it at once). */
    wake: everyWaiter,
    /** `job`: the id, or `{ id, name }` (the name types the result; a job of another name is refused). */
    async result(job: number | { id: number; name?: string }, options: ResultOptions = {}): Promise<unknown> {
      deps.open();
      const { id, name } = typeof job === 'object' && job !== null ? job : { id: job, name: undefined };
      checkInteger('job id', id, 1);
      if (name !== undefined && typeof name !== 'string') throw new ValidationError('result: the job name must be a string');
      rejectUnknownOptions('result options', options, ['timeout', 'signal']);
      if (options.timeout !== undefined) checkInteger('result timeout', options.timeout, 0);
      const { signal } = options;
      if (signal !== undefined && !(signal instanceof AbortSignal)) throw new ValidationError('result signal must be an AbortSignal');
      signal?.throwIfAborted();
      return new Promise((resolve, reject) => {
        let done = false;
        let reading = false;
        let again = false;
        let cancelTimeout: (() => void) | undefined;
        const onAbort = () => end(() => reject(signal!.reason));
        const end = (settle: () => void) => {
          if (done) return;
          done = true;
          cancelTimeout?.();
          signal?.removeEventListener('abort', onAbort);
          leave(id, check);
          settle();
        };
        // One read at a time; a hint during a read asks for another after it.
        const check = (): void => {
          if (done) return;
          if (reading) {
            again = true;
            return;
          }
          reading = true;
          void (async () => {
            try {
              do {
                again = false;
                // A job deleted by the move that finished it (retention 0) left its outcome behind for a while.
                const job = (await store.get(id)) ?? keptOutcome(await store.outcome(id));
                if (!job) return end(() => reject(new JobNotFoundError(id)));
                if (name !== undefined && job.name !== name) {
                  return end(() => reject(new ValidationError(`result: job ${id} is a "${job.name}" job, not ${JSON.stringify(name.slice(0, 200))}`)));
                }
                const o = outcome(job);
                if (o) return end(() => (o.ok ? resolve(o.value) : reject(o.error)));
              } while (again && !done);
            } catch (err) {
              end(() => reject(err));
            } finally {
              reading = false;
            }
          })();
        };
        const set = waiters.get(id) ?? new Set();
        set.add(check);
        waiters.set(id, set);
        watching();
        signal?.addEventListener('abort', onAbort, { once: true });
        // However long: a timeout past what one timer holds is not cut short.
        if (options.timeout !== undefined) cancelTimeout = afterDelay(clock, options.timeout, () => end(() => reject(new WaitTimeoutError(id, options.timeout!))));
        check();
      });
    },
  };
}
