/**
 * The engine's wiring: builds the one engine a queue has from its store,
 * clock and jobs. The facade (queue.ts) and the consumer (consumer.ts) both
 * receive it; the rooms below name it by its interface (core/engine.ts),
 * and nothing below imports this file.
 *
 *   facade ──► engine ──► store
 *                 ▲  └──► machines (registry, compiled tables)
 *   consumer ─────┘  (claims, applies outcomes, listens on ready$)
 */
import { Subject } from 'rxjs';
import { JobState } from '../../machines/job.machine.js';
import { createBatcher } from '../lib/batcher.js';
import type { TransitionRequest } from '../store/store.js';
import type { Committed } from './move/commit.js';
import { createTracing } from '../telemetry/tracing.js';
import { createInspection, type Inspection } from './actions/inspection.js';
import type { Engine, EngineDeps, Ready } from './core/engine.js';
import { transitionEvent, type BufferEvent, type ClaimBatchEvent, type ClaimPassEvent, type QueueEvent } from './core/events.js';
import { isDeclaration, type AnyJobDefinition } from './core/job-definition.js';
import { limitsByName } from './core/limits.js';
import { createLiveLimits } from './core/live-limits.js';
import { createMachineRegistry } from './core/machine-registry.js';
import type { TransitionNotice } from './core/moves.js';
import { createOutageLog } from './core/outage.js';
import { createSharedTime } from './core/shared-time.js';
import { KEPT_OUTCOME_MS } from './core/options.js';
import { resolveRetention, retentionRules } from './core/retention.js';
import { createEnqueuePaths, type Written } from './enqueue/enqueue-paths.js';
import { createNewJob } from './enqueue/new-job.js';
import { createApplyEvent } from './move/apply-event.js';
import { createWakeWaiting } from './move/wake-waiting.js';
import { createCommit } from './move/commit.js';
import { createHoldRelease } from './move/run-holds.js';
import { toLoggedError } from './run/job-runner.js';

/** The engine as the facade holds it: with the reads and controls only the facade makes. */
export interface FacadeEngine extends Engine {
  /** The facade's reads and controls of the store (queue.getJob, stats, pause …). */
  readonly inspect: Inspection;
}

export function createEngine(deps: EngineDeps): FacadeEngine {
  const { store, clock, logger } = deps;
  // Declared jobs are only enqueued here: the engine runs (and claims) the defined ones.
  // (createQueue's options refused a name given twice before the store was opened: options.ts.)
  const definitions = new Map<string, AnyJobDefinition>();
  for (const job of deps.jobs) if (!isDeclaration(job)) definitions.set(job.name, job);
  // Each name's own retention replaces the queue's for the states it names (core/retention.ts).
  const ownRetention = new Map([...definitions.values()].filter((d) => d.retention !== undefined).map((d) => [d.name, resolveRetention(`job "${d.name}" retention`, d.retention)]));
  const retention = retentionRules(deps.retention, ownRetention, [...definitions.keys()]);
  const registry = createMachineRegistry(definitions);
  const events = new Subject<QueueEvent>();
  const ready = new Subject<Ready>();
  const claims = new Subject<ClaimBatchEvent>();
  const passes = new Subject<ClaimPassEvent>();
  const buffer = new Subject<BufferEvent>();
  const debug = logger.isLevelEnabled('debug');
  const wantsEvents = () => debug || events.observed;

  const announce = (e: QueueEvent, attemptsBefore?: number): void => {
    if (e.type === 'run:stuck') {
      logger.error({ jobId: e.job.id, job: e.job.name, attempt: e.attempts, workerId: e.workerId, reason: e.reason }, 'handler has not returned after it was told to stop; its run keeps its slot and lease');
    } else if (e.to === JobState.dead) {
      logger.error({ jobId: e.job.id, job: e.job.name, attempt: e.attempts, err: e.error && toLoggedError(e.error) }, 'job is dead');
    } else if (e.to === JobState.failed) {
      // The attempt that ran; one the machine gave back (a retry-later the handler asked for) does not count.
      const ran = Math.max(e.attempts, attemptsBefore ?? e.attempts);
      const fields = { jobId: e.job.id, job: e.job.name, attempt: ran, err: e.error && toLoggedError(e.error), runAt: e.runAt };
      if (ran > e.attempts) logger.warn({ ...fields, attemptsSpent: e.attempts }, 'attempt asked to run again later; not counted against its attempts');
      else logger.warn(fields, 'attempt failed; will retry');
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
      announce(transitionEvent(n.job, n.from, n.to, n.event, n.at, n.attempts, n), n.attemptsBefore);
    }
  };

  const transitions = createBatcher<TransitionRequest, Committed>(async (reqs) => {
    const { moved, parentMoves } = await store.transition(reqs);
    return moved.map((committed, i) => ({ committed, parentMoves: parentMoves[i] ?? [] }));
  });
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
  const time = createSharedTime(clock, store, logger);
  const apply = createApplyEvent({ registry, commit, read: (id) => store.get(id), clock, time, onTransition, deletesAtOnce: retention.deletesAtOnce });

  // A commit of jobs: the claim loop wakes for those this process runs; created ones are announced (not while the commit is not known).
  const afterInsert = ({ jobs, results, at, known: announceCreated }: Written): void => {
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
  const live = createLiveLimits(limitsByName(definitions.values()));
  const paths = createEnqueuePaths({ store, clock, time, tracing, closed: () => closed });
  paths.written$.subscribe(afterInsert);
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
    get limits() {
      return live.current();
    },
    refreshLimits: async () => live.learn(await store.nameLimits()),
    changedLimits: () => live.changed(),
    retention,
    keptOutcomeMs: deps.keptOutcomeMs ?? KEPT_OUTCOME_MS,
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
    wakeWaiting: createWakeWaiting({ store, apply }),
    releaseHold: createHoldRelease({ store, registry, clock, time, deletesAtOnce: retention.deletesAtOnce, wake: () => ready.next({ at: clock.now(), promote: false }) }),
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
