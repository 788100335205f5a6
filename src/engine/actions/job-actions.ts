/**
 * What a caller does to jobs beside sending them events: delete them (one,
 * a selection, or every job of a state older than a date) and ask which
 * events a job's machine accepts now. Deletes are compare-and-sets on the
 * version the job was read at: a job that moved on meanwhile is read again
 * and judged as it is now, so a job claimed by another process between the
 * read and the delete is never deleted under its running handler.
 */
import { FINISHED_STATES, JobEventType, JobState, RUNTIME_EVENTS } from '../../../machines/job.machine.js';
import { InvalidTransitionError, JobNotFoundError, ValidationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { parseDuration, type Duration } from '../../lib/duration.js';
import type { JobRecord, Store } from '../../store/store.js';
import type { MachineRegistry } from '../core/machine-registry.js';
import { checkInteger, checkString, rejectUnknownOptions } from '../../lib/validate.js';

/** What `remove(ids)` did: the ids deleted, and those left with why (gone already, running, a flow child its parent waits for). */
export interface RemoveOutcome {
  removed: number[];
  skipped: Array<{ id: number; code: string; message: string }>;
}

export interface CleanOptions {
  /** The state whose jobs go: a finished one (`completed`, `dead`, `cancelled`), or `pending`, `failed`, `sleeping`, … (never `processing`). */
  state: string;
  /** Only jobs with this name. */
  name?: string;
  /** Only jobs in the state since this time or before: a Date, or an age (ms, or `'7d'`, `'12h'`; 0: every one). */
  olderThan: Date | Duration;
  /** At most this many (default: every one that matches). */
  limit?: number;
}

/** Deleted per transaction: a clean of a million jobs holds the write lock a batch at a time. */
const CLEAN_BATCH = 1000;
/** Fresh reads after a delete that missed (each miss follows another writer's commit). */
const AGAIN_AT_MOST = 8;
/** A selection removed at once, at most. */
const MAX_SELECTION = 10_000;

export interface JobActions {
  remove(id: number): Promise<void>;
  remove(ids: readonly number[]): Promise<RemoveOutcome>;
  clean(options: CleanOptions): Promise<number>;
  acceptedEvents(id: number): Promise<string[]>;
}

export function createJobActions(deps: { store: Store; clock: Clock; registry: MachineRegistry; open: () => void }): JobActions {
  const { store, clock, registry } = deps;

  /** Why a job may not be deleted as it is, or undefined when it may. */
  const refusal = (job: JobRecord): InvalidTransitionError | undefined => {
    // A held job has a handler running somewhere: cancel it first.
    if (job.leaseToken !== null) return new InvalidTransitionError(job.id, job.state, 'remove');
    // A flow child not yet finished: its parent waits for it (and would wait forever).
    if (job.parentId != null && !FINISHED_STATES.includes(job.state) && !registry.forJob(job.name, job.retry).finalStates.has(job.state)) {
      return new InvalidTransitionError(job.id, job.state, 'remove');
    }
    return undefined;
  };

  const removeOne = async (id: number, read?: JobRecord): Promise<void> => {
    let job = read ?? (await store.get(id));
    for (let tries = 0; ; tries++) {
      if (!job) throw new JobNotFoundError(id);
      const refused = refusal(job);
      if (refused) throw refused;
      const [gone] = await store.removeJobs([{ id, version: job.version, state: job.state }], clock.now());
      if (gone) return;
      if (tries + 1 >= AGAIN_AT_MOST) throw new InvalidTransitionError(id, job.state, 'remove');
      job = await store.get(id);
    }
  };

  const removeMany = async (ids: readonly number[]): Promise<RemoveOutcome> => {
    if (ids.length > MAX_SELECTION) throw new ValidationError(`remove takes at most ${MAX_SELECTION} ids at once (use clean() for more)`);
    for (const id of ids) checkInteger('job id', id, 1);
    const unique = [...new Set(ids)];
    const jobs = await Promise.all(unique.map((id) => store.get(id)));
    const outcome: RemoveOutcome = { removed: [], skipped: [] };
    const candidates = jobs.filter((job): job is JobRecord => job !== undefined && refusal(job) === undefined);
    // One transaction for every job still as it was read; the others are judged one by one.
    const gone = await store.removeJobs(candidates.map((j) => ({ id: j.id, version: j.version, state: j.state })), clock.now());
    const removed = new Set(candidates.filter((_, i) => gone[i]).map((j) => j.id));
    await Promise.all(
      unique.map(async (id, i) => {
        if (removed.has(id)) return;
        try {
          await removeOne(id, candidates.includes(jobs[i]!) ? undefined : jobs[i]);
          removed.add(id);
        } catch (err) {
          if (!(err instanceof InvalidTransitionError || err instanceof JobNotFoundError)) throw err;
          outcome.skipped.push({ id, code: err.code, message: err.message });
        }
      }),
    );
    outcome.removed = unique.filter((id) => removed.has(id));
    outcome.skipped.sort((a, b) => unique.indexOf(a.id) - unique.indexOf(b.id));
    return outcome;
  };

  const remove = (async (what: number | readonly number[]) => {
    deps.open();
    if (Array.isArray(what)) return removeMany(what);
    checkInteger('job id', what, 1);
    await removeOne(what as number);
  }) as JobActions['remove'];

  return {
    remove,
    async clean(options) {
      deps.open();
      if (typeof options !== 'object' || options === null) throw new ValidationError('clean takes { state, name?, olderThan, limit? }');
      rejectUnknownOptions('clean options', options, ['state', 'name', 'olderThan', 'limit']);
      const state = checkString('clean state', options.state, 200);
      if (state === JobState.processing) throw new ValidationError('clean: processing jobs have handlers running; cancel them first');
      if (options.name !== undefined) checkString('clean name', options.name, 200);
      if (options.limit !== undefined) checkInteger('clean limit', options.limit, 1);
      const now = clock.now();
      const { olderThan } = options;
      let before: number;
      if (olderThan instanceof Date) {
        before = olderThan.getTime();
        if (Number.isNaN(before)) throw new ValidationError('clean olderThan is an invalid Date');
      } else {
        // An age past the epoch matches nothing: bounded, so every store takes the time as a whole number.
        before = Math.max(-1, Math.round(now - parseDuration('clean olderThan', olderThan)));
      }
      let left = options.limit ?? Number.POSITIVE_INFINITY;
      let removed = 0;
      while (left > 0) {
        const batch = Math.min(CLEAN_BATCH, left);
        const n = await store.cleanJobs({ state, ...(options.name === undefined ? {} : { name: options.name }), before, limit: batch }, clock.now());
        removed += n;
        left -= n;
        if (n < batch) break;
      }
      return removed;
    },
    async acceptedEvents(id) {
      deps.open();
      checkInteger('job id', id, 1);
      const job = await store.get(id);
      if (!job) throw new JobNotFoundError(id);
      // The caller's events only: the runtime's carry facts a caller cannot vouch for, delayed ones come due by themselves.
      return registry
        .forJob(job.name, job.retry)
        .accepts(job.state)
        // job.update carries fields: queue.update sends it.
        .filter((type) => !RUNTIME_EVENTS.includes(type) && !type.startsWith('xstate.') && type !== JobEventType.update);
    },
  };
}
