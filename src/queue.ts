/**
 * createQueue(): the public facade. It resolves the options, opens (or takes)
 * the store, builds the engine, and hands the engine to the consumer when
 * the queue starts. Producing, inspecting and controlling jobs all go through
 * the engine; the job machine decides every transition and the store
 * persists it.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { every, systemClock } from './lib/clock.js';
import { LIMITS_EVERY_MS } from './engine/core/live-limits.js';
import { createDefaultLogger, silentLogger } from './lib/logger.js';
import { createConsumer, type Consumer } from './engine/consumer.js';
import { poolOwner, resolvePools, type ResolvedPool } from './engine/core/pools.js';
import { createRetentionLoop } from './engine/move/retention-loop.js';
import { createEngine, type FacadeEngine } from './engine/create-engine.js';
import { createManualJobs } from './engine/actions/manual-jobs.js';
import { createLimitActions } from './engine/actions/limit-actions.js';
import { createScheduleApi } from './engine/actions/schedule-api.js';
import { createSyncEnqueue } from './engine/enqueue/enqueue-sync.js';
import type { AnyJob } from './engine/core/job-definition.js';
import type { JobMapOf } from './engine/core/job-types.js';
import { toJob, toStepView, toTransition } from './engine/core/job-view.js';
import { resolveQueueOptions, type QueueOptions } from './engine/core/options.js';
import { deletesByAge } from './engine/core/retention.js';
import { checkClient, splitClient } from './engine/enqueue/caller-client.js';
import { createFlowApi } from './engine/enqueue/flow-api.js';
import { createSignal } from './engine/actions/job-messages.js';
import { createPublished, withPublished } from './engine/actions/job-values.js';
import { createJobActions } from './engine/actions/job-actions.js';
import { createJobEvents } from './engine/actions/job-events.js';
import { createJobResults } from './engine/actions/job-results.js';
import { createWatch } from './engine/actions/watch.js';
import { boundNames } from './engine/actions/stats-view.js';
import { pausedView } from './store/paused.js';
import { createJobUpdate } from './engine/actions/job-update.js';
import { payloadSchemasOf, validateItems, validatePayload } from './engine/core/payload-schema.js';
import { checkInteger, checkString, rejectUnknownOptions } from './lib/validate.js';
import { watchStartGate } from './engine/actions/watch-start.js';
import { QueueClosedError, ValidationError } from './errors.js';
import type { Queue } from './queue-api.js';
import { registerInternals } from './queue-internals.js';
import { openStore } from './store/open-store.js';
import { createTracing } from './telemetry/tracing.js';
import { startOtelMetrics } from './metrics/otel-metrics.js';
import { WHOLE_QUEUE } from './store/paused.js';

export type { Queue, QueueStatsView } from './queue-api.js';

const LIST_KEYS = ['state', 'name', 'limit', 'after', 'newest'] as const;

/**
 * @example
 * const queue = createQueue({
 *   path: './app.db',
 *   concurrency: 8,
 *   jobs: [defineJob({ name: 'email', handler: async ({ to }) => send(to) })],
 * });
 * await queue.enqueue('email', { to: 'ada@example.com' }, { key: 'welcome:ada' });
 * await queue.start();
 */
export function createQueue<const Jobs extends readonly AnyJob[] = []>(options: QueueOptions & { jobs?: Jobs }): Queue<JobMapOf<Jobs>> {
  return createUntypedQueue(options) as unknown as Queue<JobMapOf<Jobs>>;
}

function createUntypedQueue(options: QueueOptions): Queue {
  const o = resolveQueueOptions(options);
  const clock = o.clock ?? systemClock;
  const logger = o.logger === false ? silentLogger() : o.logger ? o.logger.child({ queue: o.name }) : createDefaultLogger(o.name);
  const opened =
    o.store ??
    openStore(
      {
        path: o.path!,
        ...(o.connection === undefined ? {} : { connection: o.connection, schema: o.schema ?? 'litejobs' }),
        durability: o.durability,
        cacheMiB: o.cacheSize,
        busyTimeoutMs: o.busyTimeout,
        history: o.history,
        retentionIndex: deletesByAge(o.retention),
        concurrency: o.concurrency,
        ...(o.database === undefined ? {} : { database: o.database }),
      },
      clock,
      logger,
    );
  const watchStart = watchStartGate(opened);
  const { store } = watchStart;
  let engine: FacadeEngine;
  let pools: ResolvedPool[];
  try {
    engine = createEngine({ store, clock, logger, jobs: o.jobs, retention: o.retention, keptOutcomeMs: o.keptOutcome, maxPayloadBytes: o.maxPayloadBytes, tracing: createTracing(o.telemetry.traces) });
    // Checked now, before anything runs: each pool's names are defined here (with a handler), and in one pool only.
    pools = resolvePools(o.pools, [...engine.definitions.keys()], { concurrency: o.concurrency, prefetch: o.prefetch });
  } catch (err) {
    // A machine or pool refused at start-up (engine/core/machine-registry.ts, pools.ts): the store this call opened goes with it.
    if (o.store === undefined) void opened.close().catch(() => undefined);
    throw err;
  }
  // The facade's reads and controls of the store (inspection.ts); job moves go through engine.apply.
  const { inspect } = engine;
  // Declared jobs' schemas too: a producer validates what it enqueues.
  const schemas = payloadSchemasOf(o.jobs);
  // Schedules fire in queues that know their job: the defined and the declared ones.
  const jobNames: ReadonlySet<string> = new Set(o.jobs.map((job) => job.name));
  const scheduling = createScheduleApi(engine, o.maxPayloadBytes, schemas, jobNames);
  const flows = createFlowApi(engine, schemas);
  const ownerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  /** A consumer per pool while started. */
  let consumers: Consumer[] | undefined;
  /** Stops the started queue's limits loop: one per process, whatever its pools. */
  let stopLimits: (() => void) | undefined;
  let closed = false;

  const open = () => {
    if (closed) throw new QueueClosedError();
  };
  // Deletes what retention no longer keeps, and forgets kept outcomes: while the queue runs, or takes jobs by hand.
  const retention = createRetentionLoop({ store, clock, time: engine.time, rules: engine.retention, keptOutcomeMs: engine.keptOutcomeMs, outage: engine.outage });
  const manual = createManualJobs(engine, { ownerId, leaseMs: o.lease, open, started: () => consumers !== undefined, upkeep: () => retention.start() });
  const results = createJobResults({ store, clock, registry: engine.registry, events$: engine.events$, open });
  const values = createPublished({ store, clock, registry: engine.registry, watch: (options) => queue.watch(options), open });

  const load = (id: number) => inspect.job(id);

  const pauseName = (what: string, name: string | undefined): string => {
    open();
    return name === undefined ? WHOLE_QUEUE : checkString(`${what} name`, name, 200);
  };

  const jobEvents = createJobEvents({
    engine,
    open,
    abortRun: (id) => {
      for (const c of consumers ?? []) c.abort(id, 'cancel');
    },
  });

  const queue: Queue = {
    async enqueue(name, payload, opts) {
      open();
      const { client, options } = splitClient(opts);
      const schema = schemas.get(name);
      // The schema's output is what is stored (its defaults and transforms applied).
      const value = schema === undefined ? payload : await validatePayload(schema, payload, { job: name });
      const job = engine.newJob({ name, payload: value, options }, clock.now());
      if (client === undefined) return engine.enqueue(job);
      const [result] = await engine.enqueueVia(client, [job]);
      return result!;
    },
    async enqueueMany(items, opts) {
      open();
      if (!Array.isArray(items)) throw new ValidationError('enqueueMany takes an array of { name, payload, options }');
      if (opts !== undefined) rejectUnknownOptions('enqueueMany options', opts, ['client']);
      const client = opts?.client === undefined ? undefined : checkClient(opts.client);
      const payloads = await validateItems(schemas, items);
      const now = clock.now();
      const jobs = items.map((item, i) => engine.newJob({ name: item?.name, payload: payloads[i], options: item?.options }, now));
      return client === undefined ? engine.enqueueMany(jobs) : engine.enqueueVia(client, jobs);
    },
    async enqueueFlow(flow) {
      open();
      return flows.enqueueFlow(flow);
    },
    async enqueueBatch(items, options) {
      open();
      return flows.enqueueBatch(items, options);
    },
    ...createSyncEnqueue(engine, open, schemas),
    async start() {
      open();
      if (consumers) return;
      // The first claim reads the database's clock (shared-time.ts: three round trips on PostgreSQL): measured
      // now, beside the start's own reads, rather than after them. A failure shows at the claim, which measures again.
      if (engine.definitions.size > 0) void engine.time.now().catch(() => undefined);
      await scheduling.start();
      if (engine.definitions.size === 0) {
        logger.info('queue started without jobs to run: it only enqueues');
        return;
      }
      // Limits another process changed while it ran: claimed by from the first claim on (a database out of
      // reach now: its limits loop reads them once it answers, and claims wait for it as well).
      await engine.refreshLimits().catch(() => undefined);
      consumers = pools.map((pool) =>
        createConsumer(engine, {
          ownerId: poolOwner(ownerId, pool.name),
          names: pool.names,
          pool: pool.name,
          processRuns: (jobId) => (consumers ?? []).some((c) => c.runs(jobId)),
          concurrency: pool.concurrency,
          prefetch: pool.prefetch,
          leaseMs: o.lease,
          pollMs: o.pollInterval,
          stuckAfterMs: o.stuckAfter,
          threads: o.threads,
          retention,
        }),
      );
      for (const c of consumers) c.start();
      // Limits changed while the queue runs, read each second; a change wakes the claim loops (a limit raised or turned off lets held-back jobs go).
      const reading = 'reading limits';
      stopLimits = every(
        clock,
        LIMITS_EVERY_MS,
        async () => {
          if (await engine.refreshLimits()) engine.wake();
          engine.outage.recovered(reading);
        },
        (err) => void engine.outage.failed(reading, err),
      );
      if (o.pools === undefined) logger.info({ concurrency: o.concurrency, jobs: pools[0]!.names }, 'queue started');
      else logger.info({ pools: Object.fromEntries(pools.map((p) => [p.name, { concurrency: p.concurrency, jobs: p.names }])) }, 'queue started');
    },
    async stop(stopOptions) {
      await scheduling.stop();
      if (!consumers) return void (await retention.stop());
      const running = consumers;
      stopLimits?.();
      await Promise.all(running.map((c) => c.stop(stopOptions?.timeout ?? 10_000)));
      consumers = undefined;
      await engine.flush();
      logger.info('queue stopped');
    },
    async close(closeOptions) {
      if (closed) return;
      await this.stop(closeOptions);
      closed = true;
      stopMetrics?.();
      await engine.close();
      results.wake(); // waiters of result() and published() learn the queue closed
      values.wake();

    },
    async getJob(id) {
      open();
      return withPublished(store, toJob(await load(id)));
    },
    async history(id) {
      open();
      await load(id);
      return (await inspect.history(id)).map(toTransition);
    },
    async steps(id) {
      open();
      await load(id);
      return (await inspect.steps(id)).map(toStepView);
    },
    async logs(id, logsOptions) {
      open();
      return inspect.logs(id, logsOptions);
    },
    async listJobs(filter = {}) {
      open();
      rejectUnknownOptions('listJobs filter', filter, LIST_KEYS);
      if (filter.state !== undefined) checkString('listJobs state', filter.state, 200);
      if (filter.name !== undefined) checkString('listJobs name', filter.name, 200);
      if (filter.limit !== undefined) checkInteger('listJobs limit', filter.limit, 1, 10_000);
      if (filter.after !== undefined) checkInteger('listJobs after', filter.after, 0);
      if (filter.newest !== undefined && typeof filter.newest !== 'boolean') throw new ValidationError('listJobs newest must be a boolean');
      return (await inspect.list(filter)).map(toJob);
    },
    async stats() {
      open();
      const { stats, paused } = await inspect.stats();
      return { ...boundNames(stats, jobNames), stuck: (consumers ?? []).reduce((n, c) => n + c.stuck(), 0), paused: { ...pausedView(paused.names, jobNames), all: paused.all } };
    },
    ...jobEvents,
    ...createJobActions({ store, clock, registry: engine.registry, open }),
    result: results.result as Queue['result'],
    take: manual.take as Queue['take'],
    complete: manual.complete,
    fail: manual.fail,
    heartbeat: manual.heartbeat,
    watch: createWatch({ store, clock, events$: engine.events$, open, holdWrites: watchStart.hold }),
    update: createJobUpdate({ store, clock, apply: engine.apply, schemas, maxPayloadBytes: o.maxPayloadBytes, open }),
    async pause(name) {
      await inspect.setPaused(pauseName('pause', name), true);
      logger.info({ job: name ?? '*' }, name === undefined ? 'queue paused' : 'job name paused');
    },
    async resume(name) {
      await inspect.setPaused(pauseName('resume', name), false);
      logger.info({ job: name ?? '*' }, name === undefined ? 'queue resumed' : 'job name resumed');
      engine.wake();
    },
    published: values.published as Queue['published'],
    signal: createSignal({ store, clock, registry: engine.registry, wakeWaiting: engine.wakeWaiting, maxPayloadBytes: o.maxPayloadBytes, open }),
    async schedule(name, cron, scheduleOptions) {
      open();
      await scheduling.schedule(name, cron, scheduleOptions);
    },
    async unschedule(name) {
      open();
      return scheduling.unschedule(name);
    },
    async schedules() {
      open();
      return scheduling.schedules();
    },
    ...createLimitActions(engine, { open, logger }),
    async backup(destination, backupOptions = {}) {
      open();
      checkString('backup destination', destination, 4096);
      rejectUnknownOptions('backup options', backupOptions, ['onProgress']);
      await inspect.backup(destination, backupOptions.onProgress);
    },
    async ping() {
      open();
      await inspect.ping();
    },
    async diagnose(diagnoseOptions = {}) {
      open();
      rejectUnknownOptions('diagnose options', diagnoseOptions, ['integrity']);
      return inspect.diagnose(diagnoseOptions.integrity === true);
    },
    events$: engine.events$,
    claims$: engine.claims$,
    passes$: engine.passes$,
    buffer$: engine.buffer$,
    workers: () => (consumers ?? []).flatMap((c) => c.workers()),
  };
  // OpenTelemetry metrics, when a meter provider is registered (the Prometheus ones are the HTTP plugin's).
  const stopMetrics = o.telemetry.metrics ? startOtelMetrics(queue, o.name) : undefined;
  registerInternals(queue, { store, clock, logger, definitions: engine.definitions, jobNames, ownerId, tracing: engine.tracing, closed: () => closed });
  return queue;
}
