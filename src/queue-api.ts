/**
 * The public `Queue` interface that createQueue() returns (queue.ts builds
 * it): producing, inspecting and controlling jobs, typed by the job map `M`.
 */
import type { Observable } from 'rxjs';
import type { ClaimBatchEvent, ClaimPassEvent, QueueEvent } from './engine/core/events.js';
import type { BufferEvent } from './engine/core/events.js';
import type { EnqueueItem, FlowJobOf, JobOf, JobTypeMap, ResultOf, UntypedJobs } from './engine/core/job-types.js';
import type { BatchResult, FlowResult } from './engine/enqueue/flow-api.js';
import type { OtherNames } from './engine/actions/stats-view.js';
import type { Job, StepView, Transition } from './engine/core/job-view.js';
import type { JobLogs, LogsOptions } from './engine/actions/job-logs.js';
import type { EnqueueItemOptions, EnqueueManyOptions, EnqueueOptions } from './engine/core/options.js';
import type { WorkerInfo } from './engine/run/pool.js';
import type { ScheduleOptions, ScheduleRepeat, ScheduleView } from './engine/core/schedules.js';
import type { LeaseRef, TakenJob, TakeOptions } from './engine/actions/manual-jobs.js';
import type { LimitsView, NameLimitView } from './engine/actions/limits-view.js';
import type { LimitChanges } from './engine/core/live-limits.js';
import type { CleanOptions, RemoveOutcome } from './engine/actions/job-actions.js';
import type { ResultOptions } from './engine/actions/job-results.js';
import type { JobChange, WatchOptions } from './engine/actions/watch.js';
import type { JobChanges } from './engine/actions/job-update.js';
import type { SignalOptions, SignalResult, SignalTarget } from './engine/actions/job-messages.js';
import type { PublishedOptions } from './engine/actions/job-values.js';
import type { BackupProgress, InsertResult, ListFilter, QueueStats, StoreDiagnostics } from './store/store.js';

/** `stats()`: the jobs in the store by state and name, what is paused, and this process's stuck runs. */
export interface QueueStatsView extends QueueStats {
  /** Present when more names hold jobs than stats lists (`NAMES_LISTED`, besides the queue's own): the rest, summed. */
  otherNames?: OtherNames;
  /** Handlers in this process told to stop that have not returned after `stuckAfter`. */
  stuck: number;
  /** Paused by `pause()` in any process sharing the store: the whole queue, or these names (`more`: paused names beyond those listed). */
  paused: { all: boolean; names: string[]; more?: number };
}

/**
 * A queue. `M` maps each job name to its payload and result types; a queue
 * made from typed jobs (`defineJob`, `declareJob`) refuses unknown names and
 * wrong payloads at compile time.
 */
export interface Queue<M extends JobTypeMap = UntypedJobs> {
  enqueue<N extends keyof M & string>(name: N, payload: M[N]['payload'], options?: EnqueueOptions): Promise<InsertResult>;
  /** All or nothing: one transaction. */
  enqueueMany(items: ReadonlyArray<EnqueueItem<M, EnqueueItemOptions>>, options?: EnqueueManyOptions): Promise<InsertResult[]>;
  /**
   * Enqueues a parent with its children (and theirs), all in one
   * transaction. A parent waits in `waiting-children`, holding no worker,
   * until every child has finished; its handler reads them with
   * `ctx.children()`. A child ending `dead` (or `cancelled`) fails the parent
   * at once, or, with `onChildFailure: 'continue'`, the parent runs once all
   * have finished. See docs/guides/flows.md.
   */
  enqueueFlow(flow: FlowJobOf<M, EnqueueItemOptions>): Promise<FlowResult>;
  /**
   * Enqueues the items and one `onComplete` job, in one transaction: the
   * callback runs once every item has finished, whatever became of each
   * (`ctx.childCounts()` gives the counts per final state).
   */
  enqueueBatch(
    items: ReadonlyArray<EnqueueItem<M, EnqueueItemOptions>>,
    options: { onComplete: EnqueueItem<M, EnqueueItemOptions> },
  ): Promise<BatchResult>;
  /**
   * SQLite: enqueue() without waiting, written with the queue's `database`
   * (the application's better-sqlite3 connection) when it was given, so that
   * inside the application's `db.transaction(...)` the job commits or rolls
   * back with the application's writes. Invalid input throws before anything
   * is written. No `job.enqueue` event is emitted for a job written inside an
   * open transaction (it may yet roll back); workers of this process are woken
   * once the calling code has run. PostgreSQL: throws NotSupportedError (use
   * `enqueue(name, payload, { client })`). See docs/guides/transactional-enqueue.md.
   */
  enqueueSync<N extends keyof M & string>(name: N, payload: M[N]['payload'], options?: EnqueueOptions): InsertResult;
  /** enqueueMany() as enqueueSync: all or nothing (a SAVEPOINT inside the application's transaction). */
  enqueueManySync(items: ReadonlyArray<EnqueueItem<M, EnqueueItemOptions>>, options?: EnqueueManyOptions): InsertResult[];
  start(): Promise<void>;
  stop(options?: { timeout?: number }): Promise<void>;
  close(options?: { timeout?: number }): Promise<void>;
  /** The job with this id; its `name` narrows its payload and result. */
  getJob(id: number): Promise<JobOf<M>>;
  history(id: number): Promise<Transition[]>;
  /** The job's completed durable steps (`ctx.step`, `ctx.sleep`), in the order they completed. */
  steps(id: number): Promise<StepView[]>;
  /**
   * The lines the job's handler logged with `ctx.log`, oldest first, with
   * the attempt that logged each: one page (`after` a line's `seq`, at most
   * `limit`), and how many earlier lines were dropped (a job keeps its
   * newest 1,000). They are stored at lease renewals and before each
   * attempt's outcome, and deleted with the job.
   *
   * @example
   * const { lines, dropped } = await queue.logs(id);
   * for (const l of lines) console.log(l.at.toISOString(), l.attempt, l.level, l.message);
   */
  logs(id: number, options?: LogsOptions): Promise<JobLogs>;
  listJobs(filter?: ListFilter): Promise<Array<JobOf<M>>>;
  stats(): Promise<QueueStatsView>;
  /** Sends a `dead` job back to `pending` with a fresh set of attempts. */
  retry(id: number): Promise<JobOf<M>>;
  /** Cancels a job that has not finished; a running handler sees its signal abort. */
  cancel(id: number): Promise<JobOf<M>>;
  /**
   * Runs a completed or cancelled job again (the machine's `job.rerun`: the
   * history says so), with a fresh set of attempts. Its result stays until
   * the new run completes.
   */
  runAgain(id: number): Promise<JobOf<M>>;
  /**
   * Makes a job that waits for its time due now (the machine's
   * `job.promote`): a delayed job, a retry waiting out its backoff, a
   * sleeping job. Its attempts are kept.
   */
  promote(id: number): Promise<JobOf<M>>;
  /**
   * Deletes a job with its history, steps and log lines. A running job (one held under
   * a lease) is refused with `InvalidTransitionError`: cancel it first; so is
   * a flow child that has not finished, whose parent waits for it. Ids are
   * never handed out again.
   */
  remove(id: number): Promise<void>;
  /** Deletes these jobs (at most 10,000); those that cannot go are listed in `skipped` with why. */
  remove(ids: readonly number[]): Promise<RemoveOutcome>;
  /**
   * Deletes every job in `state` (of `name`) that has been in it since before
   * `olderThan` (a Date, or an age such as `'7d'`), at most `limit`, a
   * thousand per transaction; resolves with how many went. Not `processing`;
   * unfinished flow children stay.
   */
  clean(options: CleanOptions): Promise<number>;
  /**
   * Changes a pending job's priority, run time (`runAt`, or `delay` from
   * now) or payload (validated by its schema): the machine's `job.update`,
   * so the history says so. Raises `InvalidTransitionError` once the job is
   * no longer pending (claimed, finished); a job claimed meanwhile is never
   * changed under its handler.
   */
  update(id: number, changes: JobChanges): Promise<JobOf<M>>;
  /** The events a caller may `send` the job now: those its machine accepts in the job's state (the runtime's own left out). */
  acceptedEvents(id: number): Promise<string[]>;
  /**
   * Waits for the job to finish, whichever process sharing the store runs
   * it, and resolves with its result. Rejects with `JobFailedError` when it
   * ends `dead` or `cancelled`, `WaitTimeoutError` after `timeout` ms, the
   * signal's reason when `signal` aborts, `JobNotFoundError` when there is no
   * such job (or it was deleted, as retention 0 does when it finishes).
   *
   * Given `{ id, name }`, a typed queue resolves with that job's result
   * type (and refuses a job of another name with `ValidationError`); given
   * the id alone, with any of the queue's result types.
   *
   * @example
   * const { id } = await queue.enqueue('render', { page: 1 });
   * const pdf = await queue.result({ id, name: 'render' }, { timeout: 30_000 });
   */
  result<N extends keyof M & string>(job: { id: number; name: N }, options?: ResultOptions): Promise<M[N]['result']>;
  result<R = ResultOf<M>>(id: number, options?: ResultOptions): Promise<R>;
  /**
   * Takes one job under a lease, for a loop of your own (BullMQ's
   * `getNextJob`): claimed as the pool claims (priorities, limits, pauses),
   * from `names` (default: the queue's jobs); null when none is due. Finish
   * it with `complete` or `fail`; renew the lease with `heartbeat` while it
   * runs longer than `lease` (default: the queue's). A lease that runs out
   * puts the job back as a crashed run does.
   *
   * @example
   * const job = await queue.take({ names: ['resize'] });
   * if (job) {
   *   try { await queue.complete(job, await resize(job.payload)); }
   *   catch (err) { await queue.fail(job, err); }
   * }
   */
  take<N extends keyof M & string = keyof M & string>(options?: Omit<TakeOptions, 'names'> & { names?: readonly N[] }): Promise<TakenJob<M[N]['payload']> | null>;
  /**
   * Completes a taken job with its result (JSON-serialisable): the job after
   * the move. Throws LeaseLostError when the lease is no longer the
   * taker's (run out, or the job cancelled or moved on): nothing is written.
   */
  complete(lease: LeaseRef, result?: unknown): Promise<Job>;
  /**
   * Fails a taken job's attempt: the retry policy decides (UnrecoverableError
   * goes dead, RetryLaterError comes back later unspent, as from a handler).
   * Throws LeaseLostError when the lease is no longer the taker's.
   */
  fail(lease: LeaseRef, error: unknown): Promise<Job>;
  /** Renews a taken job's lease (`lease` ms from now); false once it is no longer the taker's: stop working on it. */
  heartbeat(lease: LeaseRef, options?: { lease?: number }): Promise<boolean>;
  /**
   * Every job's changes (creations and transitions), made by any process
   * sharing the store, in order, from the store's history: of these `names`,
   * into these `states`, from now on or `after` a change's `cursor`. Each
   * subscription reads on its own. A process with `history: false` records
   * no transitions for it to see. `events$` stays this process's own.
   *
   * @example
   * queue.watch({ states: ['dead'] }).subscribe((c) => alert(`job ${c.id} (${c.name}) is dead`));
   */
  watch(options?: WatchOptions): Observable<JobChange>;
  /**
   * Delivers an event the job's machine accepts: `job.cancel`, `job.retry`,
   * or a custom machine's own. The runtime's events (`job.claim`,
   * `job.complete`, `job.fail`, `job.expire`, `job.release`) are refused.
   */
  send(id: number, event: { type: string } & Record<string, unknown>): Promise<JobOf<M>>;
  /**
   * Sends a message (any JSON value) on `topic` to a job, by id or by the
   * idempotency key it was enqueued with (`{ key: 'order:42' }`), from any
   * process. It goes into the job's mailbox, after the messages on that topic
   * sent before it, and its next `ctx.waitFor(topic)` takes it; a job waiting
   * on the topic wakes now (`woke: true`). A job that does not exist is
   * refused with JobNotFoundError, one that has finished with
   * JobFinishedError, and nothing is stored. With `key` (a provider's
   * delivery id), a message sent to the job under that key before is not
   * sent again (`duplicate: true`).
   */
  signal(target: SignalTarget, topic: string, data?: unknown, options?: SignalOptions): Promise<SignalResult>;
  /**
   * A value the job published under `key` (`ctx.publish`), from any process:
   * at once when it has been published, else when it is, or `null` once the
   * job has finished without publishing it or `timeout` (ms, or '30s') has
   * passed. JobNotFoundError for a job that never existed.
   */
  published<T = unknown>(id: number, key: string, options?: PublishedOptions): Promise<T | null>;
  /**
   * Sends every `dead` job (of one name, and whose payload matches the search
   * `where`, if given: `payload.customer = 42`) back to `pending`; resolves
   * with how many went.
   */
  retryDead(filter?: { name?: string; where?: string }): Promise<number>;
  /**
   * Stops claiming jobs of this name (or, without a name, of every name) in
   * every process sharing the store, from their next claim on. Running jobs
   * finish; enqueueing still works. Recorded in the store: it outlasts restarts.
   */
  pause(name?: string): Promise<void>;
  /** Undoes `pause(name)` (or, without a name, the whole-queue pause). */
  resume(name?: string): Promise<void>;
  /**
   * Enqueues job `name` on a schedule: a cron expression (five fields, or six
   * with seconds first; `tz` for its zone), or a fixed interval
   * (`{ every: '5m' }`), between `startDate` and `endDate`, at most `limit`
   * times. Every started queue fires it, one job per slot however many
   * processes run. Saved under `options.id` (default: the job name): saving
   * under an id again replaces that schedule, so a job name can have several.
   * See docs/guides/scheduling.md.
   */
  schedule<N extends keyof M & string>(name: N, repeat: ScheduleRepeat, options?: ScheduleOptions<M[N]['payload']>): Promise<void>;
  /** Removes the schedule with this id (a job name, for a schedule saved without one); jobs already enqueued stay. False when there was none. */
  unschedule(id: string): Promise<boolean>;
  /** Every stored schedule, by id, with its next run time. */
  schedules(): Promise<ScheduleView[]>;
  /**
   * Sets how many jobs of `group` may run at once in every process, over the
   * definitions' `groupConcurrency`; `null` gives the group back to them.
   * Stored in the database. See docs/guides/groups-and-rate-limits.md.
   */
  setGroupConcurrency(group: string, concurrency: number | null): Promise<void>;
  /** The limited names (this process's definitions, and names whose limits were changed) and the groups with jobs, as every process sees them now. */
  limits(): Promise<LimitsView>;
  /**
   * Changes a job name's limits while the queue runs, in every process: each
   * started queue takes the change up within a second, over the
   * definitions' limits (which stay as they are in code). A value sets a
   * limit, `null` turns it off; a limit not named is left as it is. Stored
   * in the database, so a process that starts later claims by it too.
   * Resolves with the name's limits as they now stand.
   *
   * @example
   * await queue.setLimits('email', { rateLimit: { max: 50, per: '1s' }, globalConcurrency: null });
   */
  setLimits(name: string, changes: LimitChanges): Promise<NameLimitView>;
  /** Gives a job name back to its definitions' limits (undoes every `setLimits` of it). */
  resetLimits(name: string): Promise<NameLimitView>;
  /** An online copy of the database, safe while other processes write. */
  backup(destination: string, options?: { onProgress?: (progress: BackupProgress) => void }): Promise<void>;
  /** Resolves while the database answers; rejects with a DatabaseError otherwise. */
  ping(): Promise<void>;
  /** The store's health and size figures; `integrity: true` adds a full integrity check (reads the whole file). */
  diagnose(options?: { integrity?: boolean }): Promise<StoreDiagnostics>;
  /** One event per transition made by this process, and one per stuck run. */
  readonly events$: Observable<QueueEvent>;
  /** One event per claim by this process: how many jobs it leased in one transaction. */
  readonly claims$: Observable<ClaimBatchEvent>;
  /**
   * One event per pass of this process's claim loop, as it ends: how many
   * jobs it claimed, and when it looks next unless woken. For tests and
   * diagnostics: wait for a pass instead of sleeping to show that the loop
   * looked and left a job alone.
   */
  readonly passes$: Observable<ClaimPassEvent>;
  /**
   * The prefetch buffer's signals: each change of its mode (starting,
   * filling, empty, stocked, low, stopped), each claim it took in, and each
   * hand-back of jobs claimed ahead (past its horizon, late, paused, lost,
   * stopped). For tests and diagnostics, as `passes$`.
   */
  readonly buffer$: Observable<BufferEvent>;
  /** The worker actors' states (empty until started). */
  workers(): Array<WorkerInfo & { pool: string }>;
}
