/**
 * litejobs: durable background jobs in one SQLite file.
 * Explicit named exports only.
 */
export { createQueue } from './queue.js';
export type { Queue } from './queue.js';
export type { QueueOptions, EnqueueOptions } from './queue-options.js';
export { defineJob } from './define-job.js';
export type { JobDefinition, Handler, HandlerContext, JobMachineFactory } from './define-job.js';
export type { Job, Transition } from './job-view.js';
export type { QueueEvent } from './events.js';
export type { QueueStats, InsertResult, ListFilter } from './store/store.js';
export type { Clock } from './clock.js';
export {
  ERROR_CODES,
  LitejobsError,
  ValidationError,
  JobNotFoundError,
  InvalidTransitionError,
  LeaseLostError,
  TimeoutError,
  UnrecoverableError,
  RetryLaterError,
  DatabaseError,
  QueueClosedError,
} from './errors.js';
export type { ErrorCode } from './errors.js';
export { createJobMachine, JobState } from '../machines/job.machine.js';
export type { JobContext, JobEvent, JobMachineExtension } from '../machines/job.machine.js';
export type { RetryPolicy, Backoff, ErrorInfo } from '../machines/policy.js';
