/**
 * The queue's metrics through the OpenTelemetry metrics API, read with the
 * real SDK's MeterProvider: the same instruments and figures as the
 * Prometheus registry of `/metrics`, named so that an SDK's Prometheus
 * exporter gives the same series names; none without a meter provider or
 * with `telemetry.metrics: false`; gone once the queue is closed.
 */
import { DataPointType, type Histogram, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { createQueue, defineJob } from '../../src/index.js';
import { createQueueMetrics } from '../../src/http/metrics.js';
import { useMeters } from '../helpers/otel.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events } from '../helpers/wait.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';

const fx = useQueues();
const meters = useMeters();

function litejobsMetrics(rm: ResourceMetrics): MetricData[] {
  return rm.scopeMetrics.filter((s) => s.scope.name === 'litejobs').flatMap((s) => s.metrics);
}

/** The name an OpenTelemetry Prometheus exporter gives an instrument. */
function prometheusName(m: MetricData): string {
  const unit = m.descriptor.unit === 'By' ? '_bytes' : m.descriptor.unit === 's' ? '_seconds' : '';
  const base = m.descriptor.name.replaceAll('.', '_') + unit;
  return m.dataPointType === DataPointType.SUM && m.isMonotonic ? `${base}_total` : base;
}

const point = (m: MetricData | undefined, attrs: Record<string, string>) =>
  m?.dataPoints.find((p) => Object.entries(attrs).every(([k, v]) => p.attributes[k] === v));

describe('metrics through OpenTelemetry', () => {
  it('the instruments of /metrics, with the same figures', async () => {
    const reader = meters.register();
    let calls = 0;
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'measured',
          retry: { attempts: 2, backoff: { type: 'fixed', delay: 5 } },
          handler: async () => {
            if (++calls === 1) throw new Error('once');
          },
        }),
      ],
    });
    const prometheus = createQueueMetrics(q);
    try {
      const done = events(q.events$, (e) => e.to === 'completed', 3, 15_000);
      await q.enqueueMany([1, 2, 3].map((n) => ({ name: 'measured', payload: { n } })));
      await q.pause('other');
      await q.start();
      await done;

      const got = litejobsMetrics(await reader.collect());
      const byName = new Map(got.map((m) => [m.descriptor.name, m]));
      const promNames = (await prometheus.registry.getMetricsAsJSON()).map((m) => m.name).sort();
      expect(got.map(prometheusName).sort()).toEqual(promNames);

      expect(point(byName.get('litejobs.jobs'), { queue: 'default', state: 'completed', name: 'measured' })?.value).toBe(3);
      expect(point(byName.get('litejobs.paused'), { name: 'other' })?.value).toBe(1);
      expect(byName.get('litejobs.wal')?.descriptor.unit).toBe('By');
      expect((byName.get('litejobs.db')?.dataPoints[0]?.value as number) > 0).toBe(true);

      // The event-derived figures match the Prometheus registry's, series by series.
      const promTransitions = (await prometheus.registry.getSingleMetric('litejobs_transitions_total')!.get()).values;
      const transitions = byName.get('litejobs.transitions')!;
      expect(transitions.dataPoints.map((p) => [p.attributes.from, p.attributes.to, p.value]).sort()).toEqual(
        promTransitions.map((v) => [v.labels.from, v.labels.to, v.value]).sort(),
      );
      expect(point(transitions, { from: 'processing', to: 'failed' })?.value).toBe(1);

      const handler = point(byName.get('litejobs.handler.duration'), { name: 'measured', to: 'completed' })!.value as Histogram;
      expect(handler.count).toBe(3);
      expect(byName.get('litejobs.handler.duration')!.descriptor.unit).toBe('s');
      const promBuckets = (await prometheus.registry.getSingleMetric('litejobs_handler_duration_seconds')!.get()).values
        .filter((v) => (v as { metricName?: string }).metricName === 'litejobs_handler_duration_seconds_bucket' && v.labels.to === 'completed')
        .map((v) => v.labels.le)
        .filter((le) => le !== '+Inf');
      expect(handler.buckets.boundaries.map(String)).toEqual(promBuckets.map(String));
      expect((point(byName.get('litejobs.enqueue_to_start'), { name: 'measured' })!.value as Histogram).count).toBe(4);
      const claims = byName.get('litejobs.claim.batch_size')!.dataPoints[0]!.value as Histogram;
      expect(claims.sum).toBe(4); // three first attempts and one retry, however the claims split them
    } finally {
      prometheus.stop();
    }

    // Closed, the queue is no longer read: a collection asks nothing of it (a read would fail, closed).
    await q.close();
    await expect(reader.collect()).resolves.toBeDefined();
  });

  it('none without a meter provider at createQueue, or with telemetry.metrics false', async () => {
    const before = fx.open({ jobs: [defineJob({ name: 'm', handler: async () => undefined })] });
    const reader = meters.register();
    const off = fx.open({ telemetry: { metrics: false }, jobs: [defineJob({ name: 'm', handler: async () => undefined })] });
    await before.enqueue('m', {});
    await off.enqueue('m', {});
    const done = events(before.events$, (e) => e.to === 'completed', 1, 15_000);
    await before.start();
    await done;
    expect(litejobsMetrics(await reader.collect())).toEqual([]);
    await off.stop();
  });

  it('tells the queues of one process apart by their name', async () => {
    const reader = meters.register();
    const other = tempDbPath();
    const one = fx.open({ name: 'one' });
    const two = createQueue({ path: other.path, name: 'two', logger: silentLogger });
    try {
      await one.enqueue('a', {});
      await two.enqueueMany([{ name: 'a', payload: 1 }, { name: 'a', payload: 2 }]);
      const jobs = litejobsMetrics(await reader.collect()).find((m) => m.descriptor.name === 'litejobs.jobs');
      expect(point(jobs, { queue: 'one', state: 'pending', name: 'a' })?.value).toBe(1);
      expect(point(jobs, { queue: 'two', state: 'pending', name: 'a' })?.value).toBe(2);
    } finally {
      await two.close();
      other.cleanup();
    }
  });
});
