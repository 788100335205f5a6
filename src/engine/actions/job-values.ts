/**
 * `queue.published(id, key, { timeout })`: a value a job published
 * (`ctx.publish`), read by any process, or waited for. The wait follows the
 * change feed (`watch()`): each change of the job, and a slow tick, read the
 * stored values again, so a value published between the first read and the
 * feed's start is found by the next read. It ends with the value; with null
 * once the job has finished (or is gone) without publishing it, or the
 * timeout has passed.
 */
import type { Observable, Subscription } from 'rxjs';
import { FINISHED_STATES } from '../../../machines/job.machine.js';
import { JobNotFoundError } from '../../errors.js';
import type { Clock, TimerHandle } from '../../lib/clock.js';
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

export function createPublished(deps: JobValuesDeps): Published {
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

  return async (id, key, options) => {
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
      let sub: Subscription | undefined;
      let deadline: TimerHandle | undefined;
      let tick: TimerHandle | undefined;
      let done = false;
      let looking = false;
      let again = false;
      const end = (value: unknown, err?: unknown) => {
        if (done) return;
        done = true;
        sub?.unsubscribe();
        if (deadline !== undefined) clock.clearTimeout(deadline);
        if (tick !== undefined) clock.clearTimeout(tick);
        if (err === undefined) resolve(value);
        else reject(err);
      };
      const check = async () => {
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
      const every = () => {
        tick = clock.setTimeout(() => {
          void check();
          if (!done) every();
        }, AGAIN_MS);
      };
      if (timeout !== undefined) deadline = clock.setTimeout(() => end(null), timeout);
      sub = deps.watch().subscribe({ next: (change) => void (change.id === id && check()), error: (err: unknown) => end(undefined, err) });
      every();
      void check();
    });
  };
}
