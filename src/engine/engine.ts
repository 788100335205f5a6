/**
 * The engine: one store, the machine registry, the one path by which jobs are
 * created and change state (each grouped into shared commits), and the event
 * bus. The facade (queue.ts) and the consumer (consumer.ts) both receive it;
 * nothing in here reaches back up to them.
 *
 *   facade ──► engine ──► store
 *                 ▲  └──► machines (registry, compiled tables)
 *   consumer ─────┘  (claims, applies outcomes, listens on ready$)
 */
import { Subject, type Observable } from 'rxjs';
import { JobState } from '../../machines/job.machine.js';
import { createBatcher } from '../lib/batcher.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { CallerClient, FlowInsertResult, InsertResult, LeasedJob, NameLimits, NewFlowNode, NewJob, ScheduleRecord, Store, TransitionRequest } from '../store/store.js';
import { createApplyEvent, type ApplyEvent, type TransitionNotice } from './apply-event.js';
import type { BufferEvent } from './claim-buffer.js';
import { transitionEvent, type ClaimBatchEvent, type ClaimPassEvent, type QueueEvent, type RunStuckEvent } from './events.js';
import { isDeclaration, type AnyJob, type AnyJobDefinition } from './job-definition.js';
import { createInspection, type Inspection } from './inspection.js';
import { limitsByName } from './limits.js';
import { createCommit } from './commit.js';
import { createMachineRegistry, type MachineRegistry } from './machine-registry.js';
import { createNewJob, type EnqueueInput } from './new-job.js';
import { createOutageLog, type OutageLog } from './outage.js';
import type { ResolvedRetention } from './options.js';
import { createEnqueuePaths } from './enqueue-paths.js';
import { createTracing, type Tracing } from '../telemetry/tracing.js';
import { createHoldRelease, type ReleaseHold } from './run-holds.js';
import { createSharedTime, type SharedTime } from './shared-time.js';

export interface EngineDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** The jobs this process defines (runs) and declares (only enqueues); it may enqueue any name. */
  jobs: readonly AnyJob[];
  retention: ResolvedRetention;
  maxPayloadBytes: number;
  /** Spans of enqueues and attempts (telemetry/tracing.ts); absent: none. */
  tracing?: Tracing;
}

/**
 * What the worker side (the consumer, the executor, the sweeps, the process
 * registry) may ask of the store: claims and leases, and what a running job
 * reads and writes. The inspection and control the facade does go through
 * `Engine.inspect` (inspection.ts), the rest through the engine's own paths.
 */
export type WorkerStore = Pick<
  Store,
  | 'claim'
  | 'get'
  | 'held'
  | 'heartbeat'
  | 'progress'
  | 'saveSteps'
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
  | 'externalChange'
  | 'watchChanges'
  | 'watchFinished'
  | 'beatProcess'
  | 'removeProcess'
>;

/** The engine as the worker side sees it: the store only through `worker`. */
export type WorkerEngine = Omit<Engine, 'store' | 'inspect'>;

export interface Engine {
  /** The whole store: for the engine's own modules that the facade builds (job actions, results, watch). */
  readonly store: Store;
  /** The store as the worker side sees it. */
  readonly worker: WorkerStore;
  /** The facade's reads and controls of the store (queue.getJob, stats, pause …). */
  readonly inspect: Inspection;
  readonly clock: Clock;
  /** The database's clock, read through `clock`: the clock of rate limits, pauses and throttle windows (shared-time.ts). */
  readonly time: SharedTime;
  readonly logger: Logger;
  /** Spans of enqueues and attempts (off unless an OpenTelemetry SDK is registered). */
  readonly tracing: Tracing;
  readonly registry: MachineRegistry;
  readonly definitions: ReadonlyMap<string, AnyJobDefinition>;
  /** The definitions' limits (groupConcurrency, globalConcurrency, rateLimit), by name: what each claim carries. */
  readonly limits: ReadonlyMap<string, NameLimits>;
  readonly retention: ResolvedRetention;
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

export function createEngine(deps: EngineDeps): Engine {
  const { store, clock, logger } = deps;
  // Declared jobs are only enqueued here: the engine runs (and claims) the defined ones.
  // (createQueue's options refused a name given twice before the store was opened: options.ts.)
  const definitions = new Map<string, AnyJobDefinition>();
  for (const job of deps.jobs) if (!isDeclaration(job)) definitions.set(job.name, job);
  const registry = createMachineRegistry(definitions);
  const events = new Subject<QueueEvent>();
  const ready = new Subject<Ready>();
  const claims = new Subject<ClaimBatchEvent>();
  const passes = new Subject<ClaimPassEvent>();
  const buffer = new Subject<BufferEvent>();
  const debug = logger.isLevelEnabled('debug');
  const wantsEvents = () => debug || events.observed;

  const announce = (e: QueueEvent): void => {
    if (e.type === 'run:stuck') {
      logger.error({ jobId: e.job.id, job: e.job.name, attempt: e.attempts, workerId: e.workerId, reason: e.reason }, 'handler has not returned after it was told to stop; its run keeps its slot and lease');
    } else if (e.to === JobState.dead) {
      logger.error({ jobId: e.job.id, job: e.job.name, attempt: e.attempts, err: e.error }, 'job is dead');
    } else if (e.to === JobState.failed) {
      logger.warn({ jobId: e.job.id, job: e.job.name, attempt: e.attempts, err: e.error, runAt: e.runAt }, 'attempt failed; will retry');
    } else if (debug) {
      logger.debug({ jobId: e.job.id, job: e.job.name, attempt: e.attempts, workerId: e.workerId, from: e.from, to: e.to, event: e.event }, `job ${e.from ?? 'new'} → ${e.to}`);
    }
    events.next(e);
  };

  // Jobs in the claim edge's source state are claimed when due; any other state waits for its due event.
  const claimable = registry.claimRule.from;
  const left = new Subject<void>();
  const onTransition = (n: TransitionNotice): void => {
    if (n.from === registry.claimRule.to && left.observed) left.next();
    if (n.runAt !== undefined && definitions.has(n.job.name)) ready.next({ at: n.runAt, promote: n.to !== claimable });
    if (n.to === JobState.failed || n.to === JobState.dead || wantsEvents()) {
      announce(transitionEvent(n.job, n.from, n.to, n.event, n.at, n.attempts, n));
    }
  };

  const transitions = createBatcher<TransitionRequest, boolean>((reqs) => store.transition(reqs));
  let closed = false;
  const outage = createOutageLog(logger, clock);
  const commit = createCommit({
    transitions,
    store,
    clock,
    closed: () => closed,
    onRetry: (err, delayMs) => outage.failed('recording job outcomes', err, delayMs),
    onRecovered: () => outage.recovered('recording job outcomes'),
  });
  const apply = createApplyEvent({ registry, commit, read: (id) => store.get(id), clock, onTransition, retention: deps.retention });

  /** `announceCreated`: emit each created job's `job.enqueue` event (false while its commit is not known). */
  const afterInsert = (jobs: readonly NewJob[], results: readonly InsertResult[], at: number, announceCreated = true): void => {
    let earliest = Number.POSITIVE_INFINITY;
    let promote = false;
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      // A debounced job that took this enqueue's payload runs at its new time: wake for that too.
      const debounced = job.unique?.kind === 'debounce' && results[i]!.state === claimable;
      if (!results[i]!.created && !debounced) continue;
      if (!results[i]!.created) {
        if (definitions.has(job.name)) earliest = Math.min(earliest, Math.max(job.runAt, at));
        continue;
      }
      if (definitions.has(job.name)) {
        earliest = Math.min(earliest, Math.max(job.runAt, at));
        if (job.state !== claimable) promote = true;
      }
      if (announceCreated && wantsEvents()) announce(transitionEvent({ id: results[i]!.id, name: job.name }, null, job.state, 'job.enqueue', at, 0));
    }
    if (earliest !== Number.POSITIVE_INFINITY) ready.next({ at: earliest, promote });
  };

  const tracing = deps.tracing ?? createTracing(false);
  const time = createSharedTime(clock, store, logger);
  const paths = createEnqueuePaths({ store, clock, time, tracing, afterInsert, closed: () => closed });
  const newJob = createNewJob(registry, definitions, deps.maxPayloadBytes);

  const flush = async () => {
    await paths.drain();
    await transitions.drain();
  };

  return {
    store,
    worker: store,
    inspect: createInspection(store, clock, time),
    clock,
    time,
    logger,
    tracing,
    registry,
    definitions,
    limits: limitsByName(definitions.values()),
    retention: deps.retention,
    outage,
    events$: events.asObservable(),
    claims$: claims.asObservable(),
    passes$: passes.asObservable(),
    buffer$: buffer.asObservable(),
    buffered(event) {
      if (buffer.observed) buffer.next(event);
    },
    passed(pass) {
      if (passes.observed) passes.next({ type: 'pass:ended', at: new Date(clock.now()), ...pass });
    },
    ready$: ready.asObservable(),
    newJob,
    enqueue: paths.enqueue,
    enqueueMany: paths.enqueueMany,
    fireSchedule: paths.fireSchedule,
    enqueueFlow: (root) => paths.enqueueFlow(root, registry.flowRule.from),
    enqueueVia: paths.enqueueVia,
    enqueueSync: paths.enqueueSync,
    apply,
    releaseHold: createHoldRelease({ store, registry, clock, retention: deps.retention, wake: () => ready.next({ at: clock.now(), promote: false }) }),
    backlog: () => transitions.backlog(),
    claimed(jobs, owner) {
      if (jobs.length === 0) return;
      const at = clock.now();
      if (claims.observed) claims.next({ count: jobs.length, owner, at: new Date(at) });
      if (!wantsEvents()) return;
      const { from, event } = registry.claimRule;
      for (const job of jobs) {
        const waitedMs = Math.max(0, at - Math.max(job.runAt, job.createdAt));
        announce(transitionEvent({ id: job.id, name: job.name }, from, job.state, event, at, job.attempts, { waitedMs }));
      }
    },
    wake: () => ready.next({ at: clock.now(), promote: true }),
    left$: left.asObservable(),
    stuck: announce,
    flush,
    async close() {
      await flush();
      closed = true;
      events.complete();
      claims.complete();
      passes.complete();
      buffer.complete();
      ready.complete();
      await store.close();
    },
  };
}
