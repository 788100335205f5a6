/**
 * The engine as the rooms below the wiring see it (create-engine.ts builds
 * it): one store, the machine registry, the one path by which jobs are
 * created and change state, the database's clock, and the event bus. Every
 * room names the engine by this interface alone, never by its wiring.
 */
import type { LimitChanges } from './live-limits.js';
import type { Observable } from 'rxjs';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { CallerClient, FlowInsertResult, InsertResult, JobRecord, LeasedJob, NameLimits, NewFlowNode, NewJob, ScheduleRecord, Store } from '../../store/store.js';
import type { Tracing } from '../../telemetry/tracing.js';
import type { BufferEvent, ClaimBatchEvent, ClaimPassEvent, QueueEvent, RunStuckEvent } from './events.js';
import type { AnyJob, AnyJobDefinition } from './job-definition.js';
import type { MachineRegistry } from './machine-registry.js';
import type { ApplyEvent, ReleaseHold } from './moves.js';
import type { EnqueueOptions } from './options.js';
import type { ResolvedRetention, RetentionRules } from './retention.js';
import type { OutageLog } from './outage.js';
import type { SharedTime } from './shared-time.js';

/** What `Engine.newJob` checks and turns into a row. */
export interface EnqueueInput {
  name: unknown;
  payload: unknown;
  options?: EnqueueOptions | undefined;
}

export interface EngineDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** The jobs this process defines (runs) and declares (only enqueues); it may enqueue any name. */
  jobs: readonly AnyJob[];
  retention: ResolvedRetention;
  /** How long a job deleted as it finished keeps its outcome (retention.outcome); default KEPT_OUTCOME_MS. */
  keptOutcomeMs?: number;
  maxPayloadBytes: number;
  /** Spans of enqueues and attempts (telemetry/tracing.ts); absent: none. */
  tracing?: Tracing;
}

/**
 * What the worker side (the consumer, the executor, the sweeps, the process
 * registry) may ask of the store: claims and leases, and what a running job
 * reads and writes. The inspection and control the facade does go through
 * `FacadeEngine.inspect` (actions/inspection.ts), the rest through the engine's own paths.
 */
export type WorkerStore = Pick<
  Store,
  | 'claim'
  | 'get'
  | 'held'
  | 'heartbeat'
  | 'progress'
  | 'saveSteps'
  | 'takeMessage'
  | 'publish'
  | 'hasMessage'
  | 'unseenMessages'
  | 'steps'
  | 'appendLogs'
  | 'children'
  | 'childCounts'
  | 'pauseLimit'
  | 'pauses'
  | 'paused'
  | 'nextDueAt'
  | 'dueJobs'
  | 'expiredLeases'
  | 'expiredHolds'
  | 'purgeFinished'
  | 'purgeNamed'
  | 'trimOutcomes'
  | 'saveNameRetention'
  | 'nameRetention'
  | 'externalChange'
  | 'watchChanges'
  | 'watchFinished'
  | 'beatProcess'
  | 'removeProcess'
>;

/** The engine as the worker side sees it: the store only through `worker`. */
export type WorkerEngine = Omit<Engine, 'store'>;

export interface Engine {
  /** The whole store: for the engine's own modules that the facade builds (job actions, results, watch). */
  readonly store: Store;
  /** The store as the worker side sees it. */
  readonly worker: WorkerStore;
  readonly clock: Clock;
  /** The database's clock, read through `clock`: the clock of rate limits, pauses and throttle windows (shared-time.ts). */
  readonly time: SharedTime;
  readonly logger: Logger;
  /** Spans of enqueues and attempts (off unless an OpenTelemetry SDK is registered). */
  readonly tracing: Tracing;
  readonly registry: MachineRegistry;
  readonly definitions: ReadonlyMap<string, AnyJobDefinition>;
  /**
   * The limits in force (groupConcurrency, globalConcurrency, rateLimit), by
   * name: the definitions', with those changed while the queue runs
   * (live-limits.ts) over them. A snapshot, replaced when they change (read
   * it where it is used): what each claim carries.
   */
  readonly limits: ReadonlyMap<string, NameLimits>;
  /** Reads the limits changed while the queue runs from the store; true when the limits in force changed. */
  refreshLimits(): Promise<boolean>;
  /** The names whose limits were changed while the queue runs, as last read. */
  changedLimits(): ReadonlyMap<string, LimitChanges>;
  /** The queue's retention with each name's own: what the finishing move and the retention loop delete. */
  readonly retention: RetentionRules;
  /** How long a job deleted as it finished keeps its outcome, ms (the retention loop forgets it after). */
  readonly keptOutcomeMs: number;
  /** The log of database outages the worker side's loops live through. */
  readonly outage: OutageLog;
  /** Each transition this process committed, and stuck runs. */
  readonly events$: Observable<QueueEvent>;
  /** Each claim by this process (how many jobs it leased). */
  readonly claims$: Observable<ClaimBatchEvent>;
  /** Each pass of this process's claim loop, as it ends. */
  readonly passes$: Observable<ClaimPassEvent>;
  /** Announces the end of a claim-loop pass. */
  passed(pass: Omit<ClaimPassEvent, 'type' | 'at'>): void;
  /** The prefetch buffer's modes, claims and hand-backs (claim-buffer.ts). */
  readonly buffer$: Observable<BufferEvent>;
  /** Announces a signal of the prefetch buffer. */
  buffered(event: BufferEvent): void;
  /**
   * A job this process runs became ready: its due time (now or earlier: ready now), and whether
   * it needs a promotion then (a delayed state's event), or only a claim (a pending job).
   */
  readonly ready$: Observable<Ready>;
  /** Checks an enqueue's input and builds the row to insert; throws ValidationError before anything is written. */
  newJob(input: EnqueueInput, now: number): NewJob;
  /** Inserts one job; calls in the same tick share one commit. */
  enqueue(job: NewJob): Promise<InsertResult>;
  /** Inserts all or nothing, in one transaction. */
  enqueueMany(jobs: readonly NewJob[]): Promise<InsertResult[]>;
  /**
   * Fires a schedule: inserts its slots' jobs and records its last handled
   * slot in one transaction, while the schedule is still as it was read
   * (Store.fireSchedule); null when it changed meanwhile.
   */
  fireSchedule(read: ScheduleRecord, jobs: readonly NewJob[], slot: number): Promise<InsertResult[] | null>;
  /** Inserts a flow (parents and their children) in one transaction. */
  enqueueFlow(root: NewFlowNode): Promise<FlowInsertResult>;
  /** Inserts through the caller's connection, inside its transaction (a store with `insertVia` only). */
  enqueueVia(client: CallerClient, jobs: readonly NewJob[]): Promise<InsertResult[]>;
  /**
   * Inserts synchronously, all or nothing (a store with `insertSync` only):
   * with the application's connection, inside its transaction if one is open.
   * This process's workers are woken once the calling code has run to its end
   * (the application's transaction has committed or rolled back by then).
   */
  enqueueSync(jobs: readonly NewJob[]): InsertResult[];
  /** Runs an event through the job's machine and commits the result (grouped with concurrent ones). */
  readonly apply: ApplyEvent;
  /** Gives back the hold of an ended run (or a claimed job dropped unstarted) on a job moved on without it (run-holds.ts). */
  readonly releaseHold: ReleaseHold;
  /** Wakes a job waiting for a message on the topic once its mailbox holds one (move/wake-waiting.ts); true when this call woke it. */
  readonly wakeWaiting: (id: number, topic: string, sent?: JobRecord) => Promise<boolean>;
  /** Transitions waiting for their commit. */
  backlog(): number;
  /** Announces a claim by this process and the jobs it leased. */
  claimed(jobs: readonly LeasedJob[], owner: string): void;
  /** Tells the consumer to look for ready jobs now (a name was resumed). */
  wake(): void;
  /** A job left the claimed state by a commit of this process: a slot of its group or name is free. */
  readonly left$: Observable<void>;
  /** Announces a stuck run. */
  stuck(event: RunStuckEvent): void;
  /** Resolves once every insert and transition pushed so far has committed. */
  flush(): Promise<void>;
  /** Flushes, ends `events$`, closes the store. */
  close(): Promise<void>;
}

export interface Ready {
  at: number;
  promote: boolean;
}

