/**
 * latency: enqueue-to-start when idle, one job at a time — in-process, and
 * from a producer in another process (the send time travels in the payload;
 * both processes read the same machine clock).
 */
import { Worker } from 'bullmq';
import { fromChild, type Started } from '../lib/cross-process.js';
import { skipLine } from '../lib/peer-list.js';
import { alternate, medianOf, ratios, roundsFor, valueCheck, type Contender } from '../lib/rounds.js';
import { fmt, fmtRatio, percentile, sleep, withTimeout } from '../lib/stats.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import type { Metric, Scenario } from '../lib/types.js';
import { bullLatency, connection, openBull, PREFIX, removeBull } from '../peers/bullmq.js';
import { JOB, openLitejobs } from '../peers/litejobs.js';
import { pgbossLatency } from '../peers/pgboss.js';
import { plainjobLatency } from '../peers/plainjob.js';
import { pgLatency } from './latency-pg.js';

const P50: Metric = { key: 'p50', label: 'p50', unit: 'ms', better: 'lower' };
const P99: Metric = { key: 'p99', label: 'p99', unit: 'ms', better: 'lower' };
const pcts = (xs: number[]) => ({ p50: percentile(xs, 50), p99: percentile(xs, 99) });

async function litejobsInProcess(dir: string, samples: number): Promise<number[]> {
  const path = freshDbPath(dir, 'lj-latency');
  const waiter: Started = {};
  const { queue } = openLitejobs(path, {}, (p) => waiter.resolve?.(p, performance.now()));
  const out: number[] = [];
  try {
    await queue.start();
    await sleep(20);
    for (let s = 0; s < samples; s++) {
      const at = new Promise<number>((resolve) => (waiter.resolve = (_p, t) => resolve(t)));
      const t0 = performance.now();
      await queue.enqueue(JOB, { i: s });
      out.push((await withTimeout(at, 10_000, 'litejobs latency sample')) - t0);
      await sleep(2);
    }
  } finally {
    await queue.close();
    removeDb(path);
  }
  return out;
}

async function litejobsCrossProcess(dir: string, samples: number): Promise<number[]> {
  const path = freshDbPath(dir, 'lj-latency-x');
  const waiter: Started = {};
  const { queue } = openLitejobs(path, {}, (p) => waiter.resolve?.(p, 0));
  try {
    await queue.start();
    return await fromChild(['litejobs', path], samples, waiter);
  } finally {
    await queue.close();
    removeDb(path);
  }
}

async function bullCrossProcess(samples: number): Promise<number[]> {
  const queue = openBull();
  const waiter: Started = {};
  const worker = new Worker(queue.name, async (job) => waiter.resolve?.(job.data as { t?: number }, 0), { connection: connection(), prefix: PREFIX });
  worker.on('error', () => {});
  try {
    await worker.waitUntilReady();
    await sleep(50);
    return await fromChild(['bullmq', queue.name], samples, waiter);
  } finally {
    await worker.close();
    await removeBull(queue);
  }
}

export const latencyScenario: Scenario = {
  name: 'latency',
  title: 'Enqueue-to-start latency, idle',
  async run(ctx) {
    const started = Date.now();
    const q = ctx.quick;
    const n = { lj: q ? 50 : 500, x: q ? 30 : 300, plain: q ? 30 : 200, boss: q ? 3 : 20 };
    const rounds = roundsFor(ctx, 3);
    const skipped: string[] = [];
    const redisDown = skipLine(ctx, 'BullMQ', 'redis');
    const pgDown = skipLine(ctx, 'pg-boss, litejobs PostgreSQL and graphile-worker', 'postgres');
    const pg = pgDown ? undefined : pgLatency(ctx.servers.postgres.url, { in: n.lj, x: n.x });
    const c: Contender[] = [{ label: 'litejobs in-process', system: 'litejobs', run: async () => pcts(await litejobsInProcess(ctx.tmpDir, n.lj)) }];
    if (!redisDown) c.push({ label: 'BullMQ in-process', system: 'bullmq', run: async () => pcts(await bullLatency(n.lj)) });
    c.push({ label: 'plainjob in-process', system: 'plainjob', run: async () => pcts(await plainjobLatency(ctx.tmpDir, n.plain, 5)) });
    if (!pgDown) c.push({ label: 'pg-boss in-process', system: 'pg-boss', run: async () => pcts(await pgbossLatency(ctx.servers.postgres.url, n.boss)) });
    c.push({ label: 'litejobs cross-process', system: 'litejobs', run: async () => pcts(await litejobsCrossProcess(ctx.tmpDir, n.x)) });
    if (!redisDown) c.push({ label: 'BullMQ cross-process', system: 'bullmq', run: async () => pcts(await bullCrossProcess(n.x)) });
    if (pg) c.push(...pg.contenders);
    for (const line of [redisDown, pgDown]) if (line) skipped.push(line);
    for (const line of skipped) ctx.progress(line);

    const rows = await alternate(ctx, 'latency', rounds, c);
    const pairs: Array<[string, string]> = [
      ['litejobs in-process', 'BullMQ in-process'],
      ['litejobs in-process', 'plainjob in-process'],
      ['litejobs in-process', 'pg-boss in-process'],
      ['litejobs cross-process', 'BullMQ cross-process'],
      ...(pg?.pairs ?? []),
    ];
    const inP50 = medianOf(rows, 'litejobs in-process', 'p50');
    const inP99 = medianOf(rows, 'litejobs in-process', 'p99');
    const xP50 = medianOf(rows, 'litejobs cross-process', 'p50');
    const xRatio = xP50 / medianOf(rows, 'BullMQ cross-process', 'p50');
    return {
      name: 'latency',
      title: this.title,
      description:
        'One job at a time into an idle, started queue: the time from just before the enqueue call to the moment the handler starts. ' +
        'p50/p99 are over the samples of one round; the table shows their median over the rounds. ' +
        'Cross-process: a child process enqueues with its send time on the machine\'s monotonic clock (process.hrtime) in the payload.',
      metrics: [P50, P99],
      config: {
        samples: `litejobs and BullMQ ${n.lj} in-process / ${n.x} cross-process per round; plainjob ${n.plain}; pg-boss ${n.boss}`,
        pause: '2 ms between samples (after the handler started)',
        litejobs: 'createQueue defaults (concurrency 4; another process\'s commit wakes the worker through a watch on the WAL, confirmed by PRAGMA data_version, with the 5 ms pollInterval as the backstop)',
        bullmq: 'Worker concurrency 1 (default), blocking wait for new jobs',
        plainjob: 'one worker, pollIntervall 5 ms (its default is 1000 ms)',
        'pg-boss': 'work() at its shortest polling interval, 0.5 s',
        ...pg?.config,
      },
      rounds,
      rows,
      ratios: [...ratios(rows, 'p50', pairs), ...ratios(rows, 'p99', pairs)],
      checks: [
        valueCheck(inP50, (v) => v <= 1, `${fmt(inP50)} ms`, 'latency in-process p50 ≤ 1 ms'),
        valueCheck(inP99, (v) => v <= 5, `${fmt(inP99)} ms`, 'latency in-process p99 ≤ 5 ms'),
        valueCheck(xP50, (v) => v <= 0.5, `${fmt(xP50)} ms`, 'latency cross-process p50 ≤ 0.5 ms'),
        valueCheck(xRatio, (r) => r <= 1, fmtRatio(xRatio), 'latency cross-process p50 ≤ BullMQ cross-process'),
        ...(pg?.checks(rows) ?? []),
      ],
      notes: ['plainjob and pg-boss poll: their latency is bounded by the polling interval, not by the store.'],
      skipped,
      durationMs: Date.now() - started,
    };
  },
};
