/** The pure machine layer: job and worker lifecycles, retry policy, the compiled table. */
export { createJobMachine, JobState, JobEventType, FINISHED_STATES, RUNTIME_EVENTS } from './job.machine.js';
export type { JobContext, JobEvent, JobMachineContext, JobMachineExtension } from './job.machine.js';
export { workerMachine, WorkerState } from './worker.machine.js';
export type { WorkerContext, WorkerEvent } from './worker.machine.js';
export { compileMachine, MachineCompileError } from './compile.js';
export { eventName } from './event-name.js';
export type { CompiledMachine, TableStep } from './compile.js';
export { computeBackoff, resolveRetryPolicy, isRetryableError, DEFAULT_RETRY_POLICY } from './policy.js';
export type { RetryPolicy, ResolvedRetryPolicy, Backoff, ErrorInfo, ErrorMatcher } from './policy.js';
export { createQuarantineMachine, QUARANTINE_EXPIRY_MS } from './examples/quarantine.machine.js';
