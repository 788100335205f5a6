/**
 * `queue.published(id, key, { timeout })`: a value a job published
 * (`ctx.publish`), read by any process, or waited for. The wait follows the
 * change feed (`watch()`), one feed for all of the queue's waiters: each
 * change of a waited-for job, and a slow tick, read its stored values again,
 * so a value published between the first read and the feed's start is found
 * by the next read. It ends with the value; with null once the job has
 * finished (or is gone) without publishing it, or the timeout has passed
 * (however long: a timeout past what one timer holds is not cut short).
 */
import type { Observable, Subscription } from 'rxjs';
import { FINISHED_STATES } from '../../../machines/job.machine.js';
import { JobNotFoundError } from '../../errors.js';
import { afterDelay, type Clock, type TimerHandle } from '../../lib/clock.js';
import { parseDuration, type Duration } from '../../lib/duration.js';
import { storedJson } from '../../lib/stored-json.js';
import { checkInteger, rejectUnknownOptions } from '../../lib/validate.js';
import type { Store } from '../../store/store.js';
import type { MachineRegistry } from '../core/machine-registry.js';
import type { Job } from '../core/job-view.js';
import { checkPublishKey } from '../run/progress-value.js';
import type { JobChange, WatchOptions } from './watch.js';

/** Read the values again this often while waiting, for a change the feed carried before it started. */
const AGAIN_MS = 1000;

export interface PublishedOptions {
  /** Wait at most this long for the value (ms, or '30s'); without it, until the job finishes. 0: read once. */
  timeout?: Duration;
}

export interface JobValuesDeps {
  store: Pick<Store, 'get' | 'outcome' | 'publishedValues'>;
  clock: Clock;
  registry: MachineRegistry;
  watch: (options?: WatchOptions) => Observable<JobChange>;
  open: () => void;
}

/** A job as getJob answers it, with the values it published (`published`, absent when none). */
export async function withPublished(store: Pick<Store, 'publishedValues'>, job: Job): Promise<Job> {
  const values = await store.publishedValues(job.id);
  if (values.length > 0) job.published = Object.fromEntries(values.map((v) => [v.key, storedJson(v.value)]));
  return job;
}

export type Published = (id: number, key: string, options?: PublishedOptions) => Promise<unknown>;

export function createPublished(deps: JobValuesDeps): { published: Published; wake(): void } {
  const { store, clock } = deps;
  /** The value, `undefined` when not published yet, or `null` when it never will be (the job finished or is gone). */
  const look = async (id: number, key: string): Promise<{ value: unknown } | 'waiting' | 'never'> => {
    // The job first, then its values: a job seen finished published all it ever will, so a value it published
    // before finishing is found by the read after (the other order could miss one published between the reads).
    const job = await store.get(id);
    const found = (await store.publishedValues(id)).find((v) => v.key === key);
    if (found) return { value: storedJson(found.value) };
    if (!job) return 'never';
    const finished = FINISHED_STATES.includes(job.state) || deps.registry.forJob(job.name, job.retry).finalStates.has(job.state);
    return finished ? 'never' : 'waiting';
  };

  // One change feed and one slow tick for every waiter of the queue, started by the first and stopped
  // with the last: a thousand callers waiting for values cost one reader of the feed, not a thousand.
  const waiters = new Map<number, Set<Waiter>>();
  let feed: Subscription | undefined;
  let tick: TimerHandle | undefined;
  const everyWaiter = (each: (w: Waiter) => void) => {
    for (const set of [...waiters.values()]) for (const w of [...set]) each(w);
  };
  const armTick = () => {
    tick = clock.setTimeout(() => {
      everyWaiter((w) => w.check());
      armTick();
    }, AGAIN_MS);
    (tick as { unref?: () => void }).unref?.();
  };
  /** Starts the feed; throws (nothing started) when it cannot start or fails as it starts. */
  const startFeed = () => {
    let started: Subscription | undefined;
    let failedAtStart: { err: unknown } | undefined;
    started = deps.watch().subscribe({
      next: (change) => {
        for (const each of [...(waiters.get(change.id) ?? [])]) each.check();
      },
      error: (err: unknown) => {
        if (started === undefined) {
          failedAtStart = { err };
          return;
        }
        // The feed is gone for every waiter: each learns why; the next waiter starts another.
        if (feed === started) feed = undefined;
        everyWaiter((each) => each.fail(err));
      },
    });
    if (failedAtStart) throw failedAtStart.err;
    feed = started;
  };
  /** Registers a waiter, the feed and the tick started for it if need be; throws, registering nothing, when the feed cannot start. */
  const join = (w: Waiter) => {
    if (feed === undefined || feed.closed) startFeed();
    const set = waiters.get(w.id) ?? new Set<Waiter>();
    set.add(w);
    waiters.set(w.id, set);
    if (tick === undefined) armTick();
  };
  const leave = (w: Waiter) => {
    const set = waiters.get(w.id);
    set?.delete(w);
    if (set?.size === 0) waiters.delete(w.id);
    if (waiters.size > 0) return;
    feed?.unsubscribe();
    feed = undefined;
    if (tick !== undefined) clock.clearTimeout(tick);
    tick = undefined;
  };

  const published: Published = async (id, key, options) => {
    deps.open();
    checkInteger('published id', id, 1);
    checkPublishKey('published', key);
    if (options !== undefined) rejectUnknownOptions('published options', options, ['timeout']);
    const timeout = options?.timeout === undefined ? undefined : parseDuration('published timeout', options.timeout);
    const first = await look(id, key);
    if (first === 'never' && !(await store.get(id)) && !(await store.outcome(id))) throw new JobNotFoundError(id);
    if (first !== 'waiting') return first === 'never' ? null : first.value;
    if (timeout === 0) return null;
    return new Promise<unknown>((resolve, reject) => {
      let cancelDeadline: (() => void) | undefined;
      let joined = false;
      let done = false;
      let looking = false;
      let again = false;
      const end = (value: unknown, err?: unknown) => {
        if (done) return;
        done = true;
        if (joined) leave(waiter);
        cancelDeadline?.();
        if (err === undefined) resolve(value);
        else reject(err);
      };
      // One read at a time; a change during a read asks for another after it.
      const check = async () => {
        if (done) return;
        if (looking) {
          again = true;
          return;
        }
        looking = true;
        try {
          do {
            again = false;
            const seen = await look(id, key);
            if (seen !== 'waiting') return end(seen === 'never' ? null : seen.value);
          } while (again && !done);
        } catch (err) {
          end(undefined, err);
        } finally {
          looking = false;
        }
      };
      const waiter: Waiter = { id, check: () => void check(), fail: (err) => end(undefined, err) };
      try {
        join(waiter);
        joined = true;
      } catch (err) {
        return end(undefined, err);
      }
      if (timeout !== undefined) cancelDeadline = afterDelay(clock, timeout, () => end(null));
      // A value published between the first read and the feed's start: found by this read.
      waiter.check();
    });
  };
  /** Reads every waited-for job now (after the queue closed: each waiter learns it at once). */
  return { published, wake: () => everyWaiter((w) => w.check()) };
}

/** A caller of `published` waiting for a value of job `id`. */
interface Waiter {
  id: number;
  /** Reads the job and its values again. */
  check(): void;
  /** The shared feed failed. */
  fail(err: unknown): void;
}
