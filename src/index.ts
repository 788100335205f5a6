/**
 * litejobs: durable background jobs in one SQLite file.
 * Explicit named exports only.
 */
export { createQueue } from './queue.js';
export type { Queue, QueueStatsView } from './queue.js';
export type { TelemetryOptions } from './telemetry/telemetry-options.js';
export type { QueueOptions, RetentionOptions, EnqueueOptions, EnqueueItemOptions, EnqueueManyOptions } from './engine/core/options.js';
export type { JobRetention, StateRetention } from './engine/core/retention.js';
export type { SqliteDatabase } from './store/sqlite/app-database.js';
export type { UniqueOptions, UniqueWhile, DebounceOptions, ThrottleOptions } from './engine/core/unique.js';
export type { JobLimits, RateLimit } from './engine/core/limits.js';
export type { LimitChanges } from './engine/core/live-limits.js';
export type { LimitsView, NameLimitView, GroupView } from './engine/actions/limits-view.js';
export { defineJob, declareJob } from './engine/core/job-definition.js';
export type { JobDefinition, JobDeclaration, AnyJob, Handler, HandlerContext, JobMachineFactory } from './engine/core/job-definition.js';
export type { ScheduleOptions, ScheduleRepeat, JobSchedule, ScheduleView } from './engine/core/schedules.js';
export type { BatchOptions, BatchResult, FlowJob, FlowResult } from './engine/enqueue/flow-api.js';
export type { CleanOptions, RemoveOutcome } from './engine/actions/job-actions.js';
export type { ResultOptions } from './engine/actions/job-results.js';
export type { TakeOptions, TakenJob, LeaseRef } from './engine/actions/manual-jobs.js';
export type { JobChange, WatchOptions } from './engine/actions/watch.js';
export type { SignalOptions, SignalResult, SignalTarget } from './engine/actions/job-messages.js';
export type { PublishedOptions } from './engine/actions/job-values.js';
export type { JobChanges } from './engine/actions/job-update.js';
export type { MissedPolicy } from './engine/core/cron.js';
export type { JobTypes, JobTypeMap, JobMapOf, JobOf, UntypedJobs } from './engine/core/job-types.js';
export type { Job, StepView, Transition } from './engine/core/job-view.js';
export type { JobLogs, LogLine, LogLevel, LogsOptions } from './engine/actions/job-logs.js';
export { isTransition } from './engine/core/events.js';
export type { QueueEvent, JobTransitionEvent, ClaimBatchEvent, ClaimPassEvent, RunStuckEvent } from './engine/core/events.js';
export type { BufferEvent, BufferMode, HandBackReason } from './engine/core/events.js';
export type { QueueStats, BackupProgress, StoreDiagnostics, InsertResult, ListFilter, Store, JobRecord, LeasedJob, NewJob, ClaimRequest, ClaimRule, TransitionRequest, HistoryEntry, CallerClient, ScheduleRecord, NewSchedule } from './store/store.js';
export { systemClock } from './lib/clock.js';
export type { Clock, TimerHandle } from './lib/clock.js';
export { createVirtualClock } from './lib/virtual-clock.js';
export type { VirtualClock } from './lib/virtual-clock.js';
export {
  ERROR_CODES,
  LitejobsError,
  ValidationError,
  PayloadValidationError,
  JobNotFoundError,
  JobFinishedError,
  InvalidTransitionError,
  JobFailedError,
  WaitTimeoutError,
  LeaseLostError,
  LeaseExpiredError,
  TimeoutError,
  UnrecoverableError,
  RetryLaterError,
  RateLimitedError,
  DuplicateStepError,
  DatabaseError,
  QueueClosedError,
  NotSupportedError,
} from './errors.js';
export type { ErrorCode, PayloadIssue } from './errors.js';
export type { PayloadSchema } from './engine/core/payload-schema.js';
export { defineWebhookJob, DEFAULT_WEBHOOK_RETRY } from './webhook/webhook-job.js';
export type { WebhookJobOptions } from './webhook/webhook-job.js';
export type { WebhookPayload } from './webhook/payload.js';
export type { WebhookResult } from './webhook/deliver.js';
export { WebhookDeliveryError } from './webhook/delivery-error.js';
export type { WebhookDeliveryCode, WebhookResponseInfo } from './webhook/delivery-error.js';
export { parseRetryAfter } from './webhook/retry-after.js';
export { createJobMachine, JobState } from '../machines/job.machine.js';
export type { JobContext, JobEvent, JobMachineContext, JobMachineExtension } from '../machines/job.machine.js';
export type { RetryPolicy, Backoff, ErrorInfo } from '../machines/policy.js';
export { machineGraph, renderMermaid, renderDot, renderSvg } from './diagram/index.js';
export type { MachineGraph, MachineGraphState, MachineGraphEdge, DiagramDirection, DotOptions, SvgOptions } from './diagram/index.js';
