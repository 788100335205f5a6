/**
 * `queue.update(id, changes)`: a pending job's new priority, run time or
 * payload, through the machine's `job.update` edge (the history says so),
 * written with the move's compare-and-set. The payload is validated by the
 * job's schema, as at enqueue. A job claimed meanwhile is not changed under
 * its handler: the update is decided again on the job as it is, and refused
 * once it is no longer pending.
 */
import { JobEventType, JobState } from '../../../machines/job.machine.js';
import { InvalidTransitionError, JobNotFoundError, ValidationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { parseDuration, type Duration } from '../../lib/duration.js';
import type { JobRecord, Store } from '../../store/store.js';
import type { ApplyEvent } from '../core/moves.js';
import { toJob, type Job } from '../core/job-view.js';
import { validatePayload, type PayloadSchema } from '../core/payload-schema.js';
import { checkRunTime } from '../core/options.js';
import { checkInteger, rejectUnknownOptions, serializePayload } from '../../lib/validate.js';

export interface JobChanges {
  priority?: number;
  /** When it runs: a Date or ms since the epoch (not with `delay`). */
  runAt?: Date | number;
  /** When it runs, from now: ms or `'5m'` (not with `runAt`). */
  delay?: Duration;
  /** A new payload, validated by the job's schema when it has one. */
  payload?: unknown;
}

export function createJobUpdate(deps: {
  store: Store;
  clock: Clock;
  apply: ApplyEvent;
  schemas: ReadonlyMap<string, PayloadSchema>;
  maxPayloadBytes: number;
  open: () => void;
}) {
  return async (id: number, changes: JobChanges): Promise<Job> => {
    deps.open();
    checkInteger('job id', id, 1);
    if (typeof changes !== 'object' || changes === null) throw new ValidationError('update takes { priority?, runAt?, delay?, payload? }');
    rejectUnknownOptions('update changes', changes, ['priority', 'runAt', 'delay', 'payload']);
    if (Object.keys(changes).length === 0) throw new ValidationError('update: give at least one of priority, runAt, delay, payload');
    if (changes.priority !== undefined) checkInteger('update priority', changes.priority, -1_000_000, 1_000_000);
    // The run time by enqueue's rule; the delay may also be written as a duration ('5m').
    const delay = changes.delay === undefined ? undefined : parseDuration('update delay', changes.delay);
    const runAt = checkRunTime('update', changes.runAt, delay, deps.clock.now());
    const job = await deps.store.get(id);
    if (!job) throw new JobNotFoundError(id);
    let payload: string | undefined;
    if ('payload' in changes) {
      const schema = deps.schemas.get(job.name);
      const value = schema === undefined ? changes.payload : await validatePayload(schema, changes.payload, { job: job.name });
      payload = serializePayload(value ?? null, deps.maxPayloadBytes);
    }
    const set = { ...(payload === undefined ? {} : { payload }), ...(changes.priority === undefined ? {} : { priority: changes.priority }) };
    // The run time stays as it was unless given.
    const r = await deps.apply(job, { type: JobEventType.update }, { runAt: runAt ?? job.runAt, set, again: (fresh: JobRecord) => fresh.state === JobState.pending });
    if (!r.accepted || !r.committed) throw new InvalidTransitionError(id, (await deps.store.get(id))?.state ?? job.state, JobEventType.update);
    const after = await deps.store.get(id);
    if (!after) throw new JobNotFoundError(id);
    return toJob(after);
  };
}
