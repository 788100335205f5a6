/**
 * One worker slot of the pool: idle → running → idle …, and on shutdown
 * stopping (while a job finishes) → stopped. The pool keeps one long-lived
 * actor of this machine per slot; an idle actor is a free slot. A running
 * worker may run several jobs back to back before it finishes its run.
 *
 * Pure: imports xstate only.
 */
import { assign, setup } from 'xstate';

export const WorkerState = {
  idle: 'idle',
  running: 'running',
  stopping: 'stopping',
  stopped: 'stopped',
} as const;
export type WorkerState = (typeof WorkerState)[keyof typeof WorkerState];

export interface WorkerContext {
  workerId: string;
  /** The first job of the current run, while `running` or `stopping`. */
  jobId: number | null;
  /** Jobs this worker has finished. */
  processed: number;
}

export type WorkerEvent =
  | { type: 'worker.start'; jobId: number }
  /** The run ended; `count` jobs were finished in it (default 1). */
  | { type: 'worker.finish'; count?: number }
  | { type: 'worker.stop' };

/**
 * @example
 * const actor = createActor(workerMachine, { input: { workerId: 'w1' } }).start();
 * actor.send({ type: 'worker.start', jobId: 42 });
 */
export const workerMachine = setup({
  types: {} as { context: WorkerContext; events: WorkerEvent; input: { workerId: string } },
  actions: {
    takeJob: assign(({ event }) => ({ jobId: event.type === 'worker.start' ? event.jobId : null })),
    releaseJob: assign(({ context, event }) => ({
      jobId: null,
      processed: context.processed + (event.type === 'worker.finish' ? (event.count ?? 1) : 0),
    })),
  },
}).createMachine({
  id: 'worker',
  initial: 'idle',
  context: ({ input }) => ({ workerId: input.workerId, jobId: null, processed: 0 }),
  states: {
    idle: {
      on: {
        'worker.start': { target: 'running', actions: 'takeJob' },
        'worker.stop': { target: 'stopped' },
      },
    },
    running: {
      on: {
        'worker.finish': { target: 'idle', actions: 'releaseJob' },
        'worker.stop': { target: 'stopping' },
      },
    },
    stopping: {
      on: { 'worker.finish': { target: 'stopped', actions: 'releaseJob' } },
    },
    stopped: { type: 'final' },
  },
});
