/** memory: litejobs process RSS and file size at 1k vs 1M pending; Redis used_memory for BullMQ at the same depths. */
import { copyFileSync } from 'node:fs';
import { buildLitejobsDb } from '../lib/build-db.js';
import { exited, forkChild, nextMessage } from '../lib/child.js';
import { skipLine } from '../lib/peer-list.js';
import { alternate, medianOf, ratios, roundsFor, valueCheck, type Contender } from '../lib/rounds.js';
import { redisClient, redisUsedMemory } from '../lib/servers.js';
import { fmt, median } from '../lib/stats.js';
import { dbBytes, freshDbPath, removeDb } from '../lib/tmp.js';
import type { Metric, Scenario } from '../lib/types.js';
import { bullAddMany, openBull, removeBull } from '../peers/bullmq.js';

const MiB = 1024 * 1024;
const SMALL = 1000;
const RUN = 1000; // jobs the probe runs before measuring (the 1k queue ends empty)
const PROBES = 3; // child processes per depth and round; RSS is their median

type Probe = { type: 'memory'; rssBefore: number; rss: number; heapUsed: number; handled: number };

async function litejobsAt(dir: string, pending: number): Promise<{ rss: number; file: number; heap: number }> {
  const template = freshDbPath(dir, 'memory-template');
  const path = freshDbPath(dir, 'memory');
  try {
    await buildLitejobsDb(template, { completed: 0, pending });
    const rss: number[] = [];
    const heap: number[] = [];
    let file = 0;
    for (let p = 0; p < PROBES; p++) {
      copyFileSync(template, path);
      const child = forkChild('memory-probe.ts', [path, String(RUN)], ['--expose-gc']);
      const m = await nextMessage(child, (x): x is Probe => (x as { type?: string }).type === 'memory', 300_000);
      await exited(child, 30_000);
      rss.push(m.rss);
      heap.push(m.heapUsed);
      const size = dbBytes(path);
      file = size.file + size.wal;
      removeDb(path);
    }
    return { rss: median(rss), heap: median(heap), file };
  } finally {
    removeDb(template);
    removeDb(path);
  }
}

async function bullDelta(n: number): Promise<number> {
  const client = redisClient();
  const queue = openBull();
  try {
    await client.connect();
    await queue.waitUntilReady();
    const before = await redisUsedMemory(client);
    await bullAddMany(queue, n, undefined, 4);
    return (await redisUsedMemory(client)) - before;
  } finally {
    await removeBull(queue);
    client.disconnect();
  }
}

export const memoryScenario: Scenario = {
  name: 'memory',
  title: 'Memory and file size by queue depth',
  async run(ctx) {
    const started = Date.now();
    const deep = ctx.quick ? 50_000 : 1_000_000;
    const deepLabel = deep >= 1e6 ? `${deep / 1e6}M` : `${deep / 1e3}k`;
    const rounds = roundsFor(ctx, 1, 1);
    const metrics: Metric[] = [
      { key: 'small', label: 'at 1k pending', unit: 'MiB', better: 'lower' },
      { key: 'deep', label: `at ${deepLabel} pending`, unit: 'MiB', better: 'lower' },
      { key: 'growth', label: `growth 1k → ${deepLabel}`, unit: 'MiB', better: 'lower' },
      { key: 'perJob', label: 'per extra job', unit: 'bytes', better: 'lower' },
    ];
    const LJ_RSS = 'litejobs process RSS';
    const LJ_FILE = 'litejobs file + WAL';
    const BULL = 'BullMQ Redis used_memory (delta)';
    const skipped: string[] = [];
    const contenders: Contender[] = [];
    const per = (a: number, b: number) => ({ small: a / MiB, deep: b / MiB, growth: (b - a) / MiB, perJob: (b - a) / (deep - SMALL) });
    let fileRow: Record<string, number> | undefined;
    contenders.push({
      label: LJ_RSS,
      system: 'litejobs',
      async run() {
        const a = await litejobsAt(ctx.tmpDir, SMALL);
        const b = await litejobsAt(ctx.tmpDir, deep);
        fileRow = per(a.file, b.file);
        return per(a.rss, b.rss);
      },
    });
    const redisDown = skipLine(ctx, 'BullMQ', 'redis');
    if (redisDown) {
      skipped.push(redisDown);
      ctx.progress(redisDown);
    } else {
      contenders.push({ label: BULL, system: 'bullmq', run: async () => per(await bullDelta(SMALL), await bullDelta(deep)) });
    }
    const rows = await alternate(ctx, 'memory', rounds, contenders);
    if (fileRow) rows.splice(1, 0, { label: LJ_FILE, system: 'litejobs', metrics: Object.fromEntries(Object.entries(fileRow).map(([k, v]) => [k, [v]])) });
    const growth = medianOf(rows, LJ_RSS, 'growth');
    return {
      name: 'memory',
      title: this.title,
      description:
        `litejobs: a child process (run with --expose-gc) opens a file holding 1k or ${deepLabel} pending jobs (plain INSERTs), runs ${RUN} no-op jobs at concurrency 16, ` +
        `stops its workers and reports RSS after a GC, with the queue still open (median of ${PROBES} child processes per depth). BullMQ: the change in Redis INFO memory used_memory after addBulk of 1k or ` +
        `${deepLabel} jobs into an empty queue.`,
      metrics,
      config: { depths: [SMALL, deep], jobsRunBeforeMeasuring: RUN, litejobs: 'createQueue defaults (64 MiB page cache), concurrency 16', bullmq: 'addBulk of 1000, default job options, payload { i }' },
      rounds,
      rows,
      ratios: ratios(rows, 'growth', [[LJ_RSS, BULL]]),
      checks: [valueCheck(growth, (v) => v <= 20, `${fmt(growth)} MiB`, `memory: RSS at ${deepLabel} pending − RSS at 1k ≤ 20 MB`)],
      notes: [
        ...(ctx.quick ? [`--quick: the deep queue holds ${deepLabel} jobs, not 1M.`] : []),
        ...(growth <= 0 ? [`litejobs RSS did not grow measurably from 1k to ${deepLabel} pending (${fmt(growth)} MiB: run-to-run noise), so no ratio is given.`] : []),
      ],
      skipped,
      durationMs: Date.now() - started,
    };
  },
};
