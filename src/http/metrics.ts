/**
 * Prometheus metrics of one queue (prom-client, a registry of its own so an
 * application's registry is not touched). Counts by state and the WAL size
 * are read from the store when scraped; transitions, handler durations,
 * enqueue-to-start lag and claim batch sizes come from this process's events.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Subscription } from 'rxjs';
import type { Queue } from '../queue.js';
import type { StoreDiagnostics } from '../store/store.js';

export interface QueueMetrics {
  readonly registry: Registry;
  stop(): void;
}

/** Starts of runs in this process, for the duration histogram; bounded by the runs in flight. */
type Starts = Map<number, number>;
const MAX_STARTS = 100_000;

/** A read shared by every caller until it settles and the scrape that asked for it has moved on. */
function perScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let reading: Promise<T> | undefined;
  return () => {
    reading ??= read().finally(() => setImmediate(() => (reading = undefined)));
    return reading;
  };
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
  const stats = perScrape(() => queue.stats());
  const diagnose = perScrape(() => queue.diagnose());

  new Gauge({
    name: 'litejobs_jobs',
    help: 'Jobs in the store by state and name (all processes).',
    labelNames: ['state', 'name'],
    registers: [registry],
    async collect() {
      const { byName } = await stats();
      this.reset();
      for (const [name, byState] of Object.entries(byName)) {
        for (const [state, n] of Object.entries(byState)) this.set({ state, name }, n);
      }
    },
  });
  new Gauge({
    name: 'litejobs_paused',
    help: '1 for each paused job name; name="*" when the whole queue is paused.',
    labelNames: ['name'],
    registers: [registry],
    async collect() {
      const { paused } = await stats();
      this.reset();
      if (paused.all) this.set({ name: '*' }, 1);
      for (const name of paused.names) this.set({ name }, 1);
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
  storeGauge('litejobs_wal_bytes', 'Size of the SQLite write-ahead log.', (d) => d.walBytes);
  storeGauge('litejobs_db_bytes', 'Size of the SQLite database file.', (d) => d.fileBytes);
  storeGauge('litejobs_expired_leases', 'Processing jobs whose lease ran out.', (d) => d.expiredLeases);

  const transitions = new Counter({ name: 'litejobs_transitions_total', help: 'Transitions made by this process, by from and to state.', labelNames: ['from', 'to'], registers: [registry] });
  const duration = new Histogram({
    name: 'litejobs_handler_duration_seconds',
    help: 'Handler run time in this process, from claim to outcome, by job name and state entered.',
    labelNames: ['name', 'to'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60, 300],
    registers: [registry],
  });
  const lag = new Histogram({
    name: 'litejobs_enqueue_to_start_seconds',
    help: 'How long a job had been due when this process claimed it, by job name.',
    labelNames: ['name'],
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 300],
    registers: [registry],
  });
  const claims = new Histogram({
    name: 'litejobs_claim_batch_size',
    help: 'Jobs leased per claim transaction in this process.',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [registry],
  });

  const starts: Starts = new Map();
  const subscription: Subscription = queue.events$.subscribe((e) => {
    if (e.type === 'run:stuck') return;
    transitions.inc({ from: e.from ?? 'none', to: e.to });
    const at = e.at.getTime();
    if (e.waitedMs !== undefined) {
      lag.observe({ name: e.job.name }, e.waitedMs / 1000);
      starts.set(e.job.id, at);
      // A run settled by another process (cancelled there) never reports here: forget the oldest.
      if (starts.size > MAX_STARTS) starts.delete(starts.keys().next().value as number);
      return;
    }
    const started = starts.get(e.job.id);
    if (started !== undefined) {
      starts.delete(e.job.id);
      duration.observe({ name: e.job.name, to: e.to }, (at - started) / 1000);
    }
  });

  const claimSubscription = queue.claims$.subscribe((e) => claims.observe(e.count));

  return {
    registry,
    stop: () => {
      subscription.unsubscribe();
      claimSubscription.unsubscribe();
    },
  };
}
