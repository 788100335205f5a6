/**
 * Prometheus metrics of one queue (prom-client, a registry of its own so an
 * application's registry is not touched). Counts by state and the WAL size
 * are read from the store when scraped; transitions, handler durations,
 * enqueue-to-start lag and claim batch sizes come from this process's events
 * (telemetry/queue-observations.ts, shared with the OpenTelemetry meter).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { OTHER_NAMES } from '../lib/name-bound.js';
import type { Queue } from '../queue.js';
import type { StoreDiagnostics } from '../store/store.js';
import { CLAIM_BATCH_BUCKETS, ENQUEUE_TO_START_BUCKETS, HANDLER_DURATION_BUCKETS, observeQueue, perCollection } from '../metrics/queue-observations.js';

export interface QueueMetrics {
  readonly registry: Registry;
  stop(): void;
}

const PROCESS_PREFIX = 'litejobs_process_';


/**
 * Node's process metrics (prom-client's defaults), but for three:
 * `nodejs_active_{handles,requests,resources}_total` are gauges, and a
 * `_total` suffix belongs to counters only (`promtool check metrics` refuses
 * it). Their by-type gauges (`nodejs_active_handles{type}` …) stay: a total
 * is their sum.
 */
function processMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, prefix: PROCESS_PREFIX });
  for (const what of ['handles', 'requests', 'resources']) registry.removeSingleMetric(`${PROCESS_PREFIX}nodejs_active_${what}_total`);
}

export function createQueueMetrics(queue: Queue, options: { processMetrics?: boolean } = {}): QueueMetrics {
  const registry = new Registry();
  if (options.processMetrics) processMetrics(registry);

  // One reading of each source per scrape, shared by the gauges that use it
  // (prom-client collects them concurrently): stats() counts the whole table.
  const stats = perCollection(() => queue.stats());
  const diagnose = perCollection(() => queue.diagnose());

  new Gauge({
    name: 'litejobs_jobs',
    help: 'Jobs in the store by state and name (all processes); name="(other)": the names stats does not list, summed.',
    labelNames: ['state', 'name'],
    registers: [registry],
    async collect() {
      const { byName, otherNames } = await stats();
      this.reset();
      for (const [name, byState] of Object.entries(byName)) {
        for (const [state, n] of Object.entries(byState)) this.set({ state, name }, n);
      }
      // Names beyond those stats lists share one series per state: the label set stays bounded.
      for (const [state, n] of Object.entries(otherNames?.byState ?? {})) this.set({ state, name: OTHER_NAMES }, n);
    },
  });
  new Gauge({
    name: 'litejobs_paused',
    help: '1 for each paused job name; name="*" when the whole queue is paused; name="(other)": how many paused names are not listed.',
    labelNames: ['name'],
    registers: [registry],
    async collect() {
      const { paused } = await stats();
      this.reset();
      if (paused.all) this.set({ name: '*' }, 1);
      for (const name of paused.names) this.set({ name }, 1);
      if (paused.more) this.set({ name: OTHER_NAMES }, paused.more);
    },
  });
  const storeGauge = (name: string, help: string, pick: (d: StoreDiagnostics) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set(pick(await diagnose()));
      },
    });
  // This process's worker pools (createQueue pools; `default` without them): slots and slots running a job now.
  const poolGauge = (name: string, help: string, value: (workers: ReturnType<Queue['workers']>) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'],
      registers: [registry],
      collect() {
        this.reset();
        const byPool = new Map<string, ReturnType<Queue['workers']>>();
        for (const w of queue.workers()) byPool.set(w.pool, [...(byPool.get(w.pool) ?? []), w]);
        for (const [pool, workers] of byPool) this.set({ pool }, value(workers));
      },
    });
  poolGauge('litejobs_pool_workers', "Worker slots of this process's pool, by pool.", (w) => w.length);
  poolGauge('litejobs_pool_busy', "Workers of this process's pool running a job now, by pool.", (w) => w.filter((x) => x.jobId !== null).length);
  storeGauge('litejobs_wal_bytes', 'Size of the SQLite write-ahead log.', (d) => d.walBytes);
  storeGauge('litejobs_db_bytes', 'Size of the SQLite database file.', (d) => d.fileBytes);
  storeGauge('litejobs_expired_leases', 'Processing jobs whose lease ran out.', (d) => d.expiredLeases);

  const transitions = new Counter({ name: 'litejobs_transitions_total', help: 'Transitions made by this process, by from and to state.', labelNames: ['from', 'to'], registers: [registry] });
  const duration = new Histogram({
    name: 'litejobs_handler_duration_seconds',
    help: 'Handler run time in this process, from claim to outcome, by job name and state entered.',
    labelNames: ['name', 'to'],
    buckets: HANDLER_DURATION_BUCKETS,
    registers: [registry],
  });
  const lag = new Histogram({
    name: 'litejobs_enqueue_to_start_seconds',
    help: 'How long a job had been due when this process claimed it, by job name.',
    labelNames: ['name'],
    buckets: ENQUEUE_TO_START_BUCKETS,
    registers: [registry],
  });
  const claims = new Histogram({
    name: 'litejobs_claim_batch_size',
    help: 'Jobs leased per claim transaction in this process.',
    buckets: CLAIM_BATCH_BUCKETS,
    registers: [registry],
  });

  const stop = observeQueue(queue, {
    transition: (from, to) => transitions.inc({ from, to }),
    enqueueToStart: (name, seconds) => lag.observe({ name }, seconds),
    handlerDuration: (name, to, seconds) => duration.observe({ name, to }, seconds),
    claimBatch: (count) => claims.observe(count),
  });

  return { registry, stop };
}
