/**
 * What a caller sends jobs through their machine: any event it accepts
 * (`send`: a custom machine's own, `job.cancel`, …), the base machine's
 * named ones (retry, cancel, run again, promote), and the retry of every
 * dead job a search finds. Each is a compare-and-set on the version read: a
 * job that moved on meanwhile is refused (a cancel alone is decided again).
 */
import { JobEventType, JobState, RUNTIME_EVENTS } from '../../../machines/job.machine.js';
import { InvalidTransitionError, ValidationError } from '../../errors.js';
import { checkString, rejectUnknownOptions } from '../../lib/validate.js';
import { parseWhere } from '../../store/where.js';
import type { Engine } from '../core/engine.js';
import { toJob, type Job } from '../core/job-view.js';
import { machineEvent } from '../core/moves.js';
import type { Inspection } from './inspection.js';

export interface JobEvents {
  send(id: number, event: { type: string } & Record<string, unknown>): Promise<Job>;
  retry(id: number): Promise<Job>;
  cancel(id: number): Promise<Job>;
  runAgain(id: number): Promise<Job>;
  promote(id: number): Promise<Job>;
  retryDead(filter?: { name?: string; where?: string }): Promise<number>;
}

export interface JobEventsDeps {
  engine: Engine & { readonly inspect: Inspection };
  open: () => void;
  /** The job left processing under a running handler of this process: tell it to stop. */
  abortRun: (id: number) => void;
}

export function createJobEvents({ engine, open, abortRun }: JobEventsDeps): JobEvents {
  const { inspect } = engine;
  const send: JobEvents['send'] = async (id, event) => {
    open();
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') {
      throw new ValidationError('send: event must be an object with a string "type"');
    }
    if (RUNTIME_EVENTS.includes(event.type)) throw new ValidationError(`send: "${event.type}" is sent by the queue itself, never by a caller`);
    if (event.type === JobEventType.update) throw new ValidationError('send: "job.update" carries new fields: use queue.update(id, changes)');
    const job = await inspect.job(id);
    // A cancel still stands for a job that moved on meanwhile: it is read again and the machine
    // decides on it as it is now. Any other event was meant for the state it was read in (a retry
    // applied twice would run a dead job's attempts twice over): it is refused instead.
    const r = await engine.apply(job, machineEvent(event), event.type === JobEventType.cancel ? { again: () => true } : undefined);
    if (!r.accepted || !r.committed) throw new InvalidTransitionError(id, (await inspect.job(id)).state, event.type);
    if (r.from === JobState.processing && r.to !== JobState.processing) abortRun(id);
    // A state kept for 0 ms (retention) deleted the row with the move: answer with the job as it ended.
    const after = await inspect.current(id);
    return toJob(after ?? { ...job, state: r.to, attempts: r.attempts, leaseOwner: null, leaseToken: null, lockedUntil: null });
  };
  return {
    send,
    retry: (id) => send(id, { type: JobEventType.retry }),
    cancel: (id) => send(id, { type: JobEventType.cancel }),
    runAgain: (id) => send(id, { type: JobEventType.rerun }),
    promote: (id) => send(id, { type: JobEventType.promote }),
    async retryDead(filter = {}) {
      open();
      rejectUnknownOptions('retryDead filter', filter, ['name', 'where']);
      const { name, where } = filter;
      if (name !== undefined) checkString('retryDead name', name, 200);
      if (where !== undefined && typeof where !== 'string') throw new ValidationError('retryDead where must be a string');
      const clauses = where === undefined ? [] : parseWhere(where);
      let retried = 0;
      for await (const page of inspect.deadPages(name, clauses)) {
        // Concurrent applies share commits (the engine's transition batcher).
        // A job that moved on since the read (another retry) is left alone.
        const results = await Promise.all(page.map((job) => engine.apply(job, { type: JobEventType.retry })));
        retried += results.filter((r) => r.accepted && r.committed).length;
      }
      return retried;
    },
  };
}
