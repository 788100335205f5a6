/**
 * One registry of every error litejobs raises, each with a stable code.
 * Users branch on the class or the `code`; messages may change, codes do not.
 * docs/reference/errors.md lists every code (a test keeps the two in step).
 */

export const ERROR_CODES = {
  LJ_ERR_VALIDATION: 'Invalid argument',
  LJ_ERR_UNKNOWN_OPTION: 'Unknown option',
  LJ_ERR_PAYLOAD_NOT_JSON: 'Payload is not JSON-serialisable',
  LJ_ERR_PAYLOAD_TOO_LARGE: 'Payload exceeds the size limit',
  LJ_ERR_INVALID_PAYLOAD: "The payload does not match the job's schema",
  LJ_ERR_BAD_CRON: 'The cron expression or its time zone is not valid',
  LJ_ERR_JOB_NOT_FOUND: 'No job with this id',
  LJ_ERR_INVALID_TRANSITION: 'The job machine does not accept this event in the job\'s state',
  LJ_ERR_LEASE_LOST: 'The lease on this job was lost',
  LJ_ERR_TIMEOUT: 'The handler ran past its timeout',
  LJ_ERR_UNRECOVERABLE: 'The handler reported an unrecoverable error',
  LJ_ERR_RETRY_LATER: 'The handler asked to be retried later',
  LJ_ERR_CHILD_FAILED: 'A child of this flow parent ended dead or cancelled, and the parent\'s policy is to fail with it',
  LJ_ERR_RATE_LIMITED: 'The handler hit a rate limit: its group or name pauses and the job runs again later',
  LJ_ERR_DUPLICATE_STEP: 'A handler used the same step name twice in one run (ctx.step, ctx.sleep)',
  LJ_ERR_JOB_FAILED: 'The job ended without completing (dead, cancelled, or another finished state): it has no result',
  LJ_ERR_WAIT_TIMEOUT: 'The job did not finish within the time given to wait for it',
  LJ_ERR_JOB_FINISHED: 'The job has finished: it takes no messages (queue.signal)',
  LJ_ERR_MAILBOX_FULL: 'The job holds as many messages as it may without taking them (queue.signal)',
  LJ_ERR_DATABASE_OPEN: 'The database file cannot be opened',
  LJ_ERR_DATABASE_READONLY: 'The database file is read-only',
  LJ_ERR_DATABASE: 'The database failed (I/O error, disk full, locked past busyTimeout)',
  LJ_ERR_DATABASE_UNAVAILABLE: 'The database server cannot be reached (connection refused or lost, server restarting)',
  LJ_ERR_QUEUE_CLOSED: 'The queue is closed',
  LJ_ERR_NOT_SUPPORTED: 'The store cannot do this',
  LJ_ERR_MACHINE: 'The job machine cannot be used by the queue',
  LJ_ERR_UNAUTHORIZED: 'A bearer token is required and was missing or wrong',
  LJ_ERR_BAD_SIGNATURE: 'The webhook signature is missing or does not match the body',
  LJ_ERR_NOT_FOUND: 'No such route or hook',
  LJ_ERR_UNSUPPORTED_MEDIA_TYPE: 'The request body is not JSON',
  LJ_ERR_CROSS_SITE: 'A request that changes something came from another site (its Origin or Sec-Fetch-Site says so)',
  LJ_ERR_HOST_NOT_ALLOWED: 'The Host header names a host this server does not answer to',
  LJ_ERR_UNSAFE_BIND: 'Refusing to listen beyond loopback without a token',
  LJ_ERR_INTERNAL: 'An unexpected server error (logged by the server)',
  LJ_ERR_WEBHOOK_DELIVERY: 'The webhook receiver failed or could not be reached',
  LJ_ERR_READ_ONLY: 'The server is read-only: it refuses actions on jobs',
  LJ_ERR_MIGRATE_RUNNING: 'The SQLite file has jobs under a live lease: its workers are still running',
  LJ_ERR_MIGRATE_CONFLICT: 'A job id being copied is already held by another job in the PostgreSQL schema',
  LJ_ERR_MIGRATE_VERIFY: 'The copied jobs per state do not match the SQLite file',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Base class of every error litejobs raises. */
export class LitejobsError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message?: string, options?: { cause?: unknown }) {
    super(message ?? ERROR_CODES[code], options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Bad input from the caller: unknown option, bad payload, bad value. */
export class ValidationError extends LitejobsError {
  constructor(message: string, code: ErrorCode = 'LJ_ERR_VALIDATION', options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** One thing a job's schema found wrong with a payload; `path` leads to the value (`['items', 0, 'sku']`). */
export interface PayloadIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<string | number>;
}

/**
 * A payload the job's schema (`defineJob({ schema })`, `declareJob(name, { schema })`)
 * refused, or whose validator threw (then `cause` holds what it threw).
 * Nothing was written. `index`: the item of `enqueueMany` that failed.
 *
 * @example
 * try {
 *   await queue.enqueue('send-email', input);
 * } catch (err) {
 *   if (err instanceof PayloadValidationError) return reply.code(400).send({ issues: err.issues });
 *   throw err;
 * }
 */
export class PayloadValidationError extends ValidationError {
  /** The job name whose schema refused the payload. */
  readonly job: string;
  readonly issues: ReadonlyArray<PayloadIssue>;
  /** The position of the refused item in `enqueueMany` (and `POST /v1/jobs/batch`); undefined for one enqueue. */
  readonly index: number | undefined;
  constructor(job: string, issues: ReadonlyArray<PayloadIssue>, options: { index?: number | undefined; message?: string; cause?: unknown } = {}) {
    const where = options.index === undefined ? '' : `enqueueMany item ${options.index}: `;
    super(`${where}job "${job}": ${options.message ?? describeIssues(issues)}`, 'LJ_ERR_INVALID_PAYLOAD', options.cause === undefined ? undefined : { cause: options.cause });
    this.job = job;
    this.issues = issues;
    this.index = options.index;
  }
}

/** How many issues a message names; the error's `issues` holds them all. */
const ISSUES_IN_MESSAGE = 3;

function describeIssues(issues: ReadonlyArray<PayloadIssue>): string {
  const named = issues.slice(0, ISSUES_IN_MESSAGE).map((issue) => (issue.path && issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message));
  const more = issues.length > ISSUES_IN_MESSAGE ? `; and ${issues.length - ISSUES_IN_MESSAGE} more` : '';
  return `the payload does not match the schema: ${named.join('; ')}${more}`;
}

export class JobNotFoundError extends LitejobsError {
  /** The id asked for; 0 when the job was asked for by its key (`queue.signal({ key })`). */
  readonly jobId: number;
  constructor(jobId: number, message = `no job with id ${jobId}`) {
    super('LJ_ERR_JOB_NOT_FOUND', message);
    this.jobId = jobId;
  }
}

/** The machine does not accept the event in the job's current state (e.g. retry of a job that is not dead). */
/** `queue.signal` to a job that has finished (completed, dead, cancelled, or its machine's own final state). */
export class JobFinishedError extends LitejobsError {
  readonly jobId: number;
  readonly state: string;
  constructor(jobId: number, state: string) {
    super('LJ_ERR_JOB_FINISHED', `job ${jobId} is ${state}: a finished job takes no messages`);
    this.jobId = jobId;
    this.state = state;
  }
}

export class InvalidTransitionError extends LitejobsError {
  readonly jobId: number;
  readonly state: string;
  readonly event: string;
  /** `hint`: what the caller may have missed, said after the fact. */
  constructor(jobId: number, state: string, event: string, hint?: string) {
    super('LJ_ERR_INVALID_TRANSITION', `job ${jobId} is ${state}: "${event}" does not apply${hint ? ` (${hint})` : ''}`);
    this.jobId = jobId;
    this.state = state;
    this.event = event;
  }
}

/**
 * `queue.result(id)`: the job finished without completing. `state` says how
 * (`dead`, `cancelled`, a finished state of a machine of one's own) and
 * `lastError` is the job's last error, if it has one.
 */
export class JobFailedError extends LitejobsError {
  readonly jobId: number;
  readonly state: string;
  readonly lastError: { name: string; message: string; code?: string } | null;
  constructor(jobId: number, state: string, lastError: { name: string; message: string; code?: string } | null) {
    super('LJ_ERR_JOB_FAILED', `job ${jobId} ended ${state}${lastError ? `: ${lastError.message}` : ''}`);
    this.jobId = jobId;
    this.state = state;
    this.lastError = lastError;
  }
}

/** `queue.result(id, { timeout })`: the job had not finished when the wait ran out (it goes on). */
export class WaitTimeoutError extends LitejobsError {
  readonly jobId: number;
  constructor(jobId: number, ms: number) {
    super('LJ_ERR_WAIT_TIMEOUT', `job ${jobId} did not finish within ${ms} ms`);
    this.jobId = jobId;
  }
}

/** A worker tried to settle a job whose lease it no longer holds. */
export class LeaseLostError extends LitejobsError {
  constructor(jobId: number) {
    super('LJ_ERR_LEASE_LOST', `lease on job ${jobId} was lost (expired, cancelled or taken over)`);
  }
}

/** Recorded as a job's error when its lease ran out before its run finished (the lease sweep fails the attempt). */
export class LeaseExpiredError extends LitejobsError {
  constructor(owner: string | null) {
    super('LJ_ERR_LEASE_LOST', `lease held by ${owner ?? 'nobody'} expired`);
  }
}

export class TimeoutError extends LitejobsError {
  constructor(ms: number) {
    super('LJ_ERR_TIMEOUT', `handler timed out after ${ms} ms`);
  }
}

/** Throw from a handler to send the job straight to `dead`. */
export class UnrecoverableError extends LitejobsError {
  constructor(message: string = ERROR_CODES.LJ_ERR_UNRECOVERABLE, options?: { cause?: unknown }) {
    super('LJ_ERR_UNRECOVERABLE', message, options);
  }
}

/** Throw from a handler to run again after `delay` ms, without spending an attempt. */
export class RetryLaterError extends LitejobsError {
  readonly delay: number;
  constructor(delay: number, message = `retry in ${delay} ms`) {
    super('LJ_ERR_RETRY_LATER', message);
    if (!Number.isFinite(delay) || delay < 0) throw new ValidationError('RetryLaterError delay must be a number ≥ 0');
    this.delay = delay;
  }
}

/**
 * Thrown by a handler that hit a rate limit of the service it calls: the job
 * goes back to pending without spending an attempt, due in `delay` ms, and
 * its group (or, for a job without one, its name) is paused as long in every
 * process. `scope: 'name'` pauses the name even for a grouped job.
 */
export class RateLimitedError extends LitejobsError {
  readonly delay: number;
  readonly scope: 'name' | 'group' | undefined;
  constructor(delay: number, options: { scope?: 'name' | 'group'; message?: string } = {}) {
    super('LJ_ERR_RATE_LIMITED', options.message ?? `rate limited for ${delay} ms`);
    if (!Number.isFinite(delay) || delay < 0) throw new ValidationError('RateLimitedError delay must be a number ≥ 0');
    if (options.scope !== undefined && options.scope !== 'name' && options.scope !== 'group') throw new ValidationError('RateLimitedError scope must be "name" or "group"');
    this.delay = delay;
    this.scope = options.scope;
  }
}

/**
 * A handler named two steps (ctx.step, ctx.sleep) alike in one run: a replay
 * could not tell them apart, so the attempt fails instead.
 */
export class DuplicateStepError extends LitejobsError {
  readonly step: string;
  constructor(step: string) {
    super('LJ_ERR_DUPLICATE_STEP', `step "${step}" was already used in this run: give each step of a job its own name`);
    this.step = step;
  }
}

export class DatabaseError extends LitejobsError {}

/** `litejobs migrate` refused or failed a check: live leases, an id conflict, or a count mismatch. */
export class MigrateError extends LitejobsError {}
/**
 * True for a database server that could not be reached or dropped the
 * connection (LJ_ERR_DATABASE_UNAVAILABLE, or LJ_ERR_DATABASE_OPEN caused by
 * it: out of reach at the first connection). The call may be made again once
 * it answers. A write that failed this way may or may not have committed.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof LitejobsError)) return false;
  if (err.code === 'LJ_ERR_DATABASE_UNAVAILABLE') return true;
  return err.code === 'LJ_ERR_DATABASE_OPEN' && err.cause !== err && isDatabaseUnavailable(err.cause);
}

/**
 * The queue's store cannot do what was asked: a synchronous enqueue
 * (`enqueueSync`) or the application's SQLite connection (`database`) on a
 * PostgreSQL queue, whose transactional enqueue is `enqueue(name, payload, { client })`.
 */
export class NotSupportedError extends LitejobsError {
  constructor(message: string) {
    super('LJ_ERR_NOT_SUPPORTED', message);
  }
}

/**
 * True for a SQLite write that waited `busyTimeout` for another connection's
 * write lock (another process, or an application transaction on the same
 * file) and gave up (LJ_ERR_DATABASE caused by SQLITE_BUSY). Nothing was
 * written: the call may be made again once the lock is released.
 */
export function isDatabaseLocked(err: unknown): boolean {
  if (!(err instanceof DatabaseError) || err.code !== 'LJ_ERR_DATABASE') return false;
  const code = (err.cause as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

export class QueueClosedError extends LitejobsError {
  constructor() {
    super('LJ_ERR_QUEUE_CLOSED');
  }
}
