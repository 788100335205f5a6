/** drain: a backlog of no-op jobs, concurrency 16, each system at its defaults and at its fastest. */
import { skipLine } from '../lib/peer-list.js';
import { alternate, WARMUP_NOTE, medianOf, ratioCheck, ratios, roundsFor, throughput, valueCheck, type Contender } from '../lib/rounds.js';
import { fmt } from '../lib/stats.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import type { RowResult, Scenario } from '../lib/types.js';
import { bullDrain } from '../peers/bullmq.js';
import { enqueueInChunks, litejobsDrain, openLitejobs, type LitejobsSettings } from '../peers/litejobs.js';
import { plainjobDrain } from '../peers/plainjob.js';
import { openRaw, rawDrain, rawPrefill } from '../peers/raw-sqlite.js';
import { pgDrain, type PgDrain } from './drain-pg.js';

const C = 16;
const LJ_DEFAULT = 'litejobs defaults';
const LJ_FAST = 'litejobs fastest';
const BULL_DEFAULT = 'BullMQ defaults c16';

export const drainScenario: Scenario = {
  name: 'drain',
  title: 'Drain a backlog, no-op handler, concurrency 16',
  async run(ctx) {
    const started = Date.now();
    const n = ctx.quick ? 5000 : 50_000;
    const rounds = roundsFor(ctx, 3);
    const timeoutMs = ctx.quick ? 30_000 : 240_000;
    const notes = new Set<string>();
    const skipped: string[] = [];
    const rate = (ms: number) => ({ rate: n / (ms / 1000) });

    const litejobs = (label: string, s: LitejobsSettings): Contender => ({
      label,
      system: 'litejobs',
      async run() {
        const path = freshDbPath(ctx.tmpDir, 'lj-drain');
        try {
          const producer = openLitejobs(path, {});
          await enqueueInChunks(producer.queue, n);
          await producer.queue.close();
          const out = await litejobsDrain(path, n, { concurrency: C, ...s }, timeoutMs);
          if (out.note) notes.add(`${label}: ${out.note}`);
          const stats = await out.queue.stats();
          await out.queue.close();
          const left = (stats.byState.pending ?? 0) + (stats.byState.processing ?? 0);
          if (left !== 0) notes.add(`${label}: ${left} jobs still pending/processing after the drain (stats: ${JSON.stringify(stats.byState)})`);
          return rate(out.ms);
        } finally {
          removeDb(path);
        }
      },
    });
    const raw = (batch: number, history = false): Contender => ({
      label: `raw floor b${batch}${history ? ' + history' : ''}`,
      system: 'raw',
      async run() {
        const path = freshDbPath(ctx.tmpDir, 'raw-drain');
        const db = openRaw(path);
        try {
          rawPrefill(db, n);
          const t0 = performance.now();
          const done = await rawDrain(db, batch, Number.POSITIVE_INFINITY, history);
          if (done !== n) throw new Error(`raw drain: ${done}/${n}`);
          return rate(performance.now() - t0);
        } finally {
          db.close();
          removeDb(path);
        }
      },
    });

    const contenders: Contender[] = [
      litejobs(LJ_DEFAULT, {}),
      litejobs(LJ_FAST, { history: false, deleteOnComplete: true }),
    ];
    const redisDown = skipLine(ctx, 'BullMQ', 'redis');
    if (redisDown) skipped.push(redisDown);
    else {
      contenders.push({ label: BULL_DEFAULT, system: 'bullmq', run: async () => rate(await bullDrain(n, C, false, timeoutMs)) });
      for (const c of [16, 64, 256]) {
        contenders.push({ label: `BullMQ fastest c${c}`, system: 'bullmq', run: async () => rate(await bullDrain(n, c, true, timeoutMs)) });
      }
    }
    contenders.push({ label: 'plainjob c16', system: 'plainjob', run: async () => rate(await plainjobDrain(ctx.tmpDir, n, C, timeoutMs)) });
    const pgDown = skipLine(ctx, 'litejobs PostgreSQL, graphile-worker and pg-boss', 'postgres');
    let pg: PgDrain | undefined;
    if (pgDown) skipped.push(pgDown);
    else {
      pg = pgDrain(ctx.servers.postgres.url, n, C, timeoutMs, ctx.quick, notes);
      contenders.push(...pg.contenders);
    }
    contenders.push(raw(16), raw(64), raw(256), raw(64, true), raw(256, true));
    for (const line of skipped) ctx.progress(line);

    const rows = await alternate(ctx, 'drain', rounds, contenders, { warmup: true });
    const bestBull = bestOf(rows, ['BullMQ fastest c16', 'BullMQ fastest c64', 'BullMQ fastest c256']);
    const pairs: Array<[string, string]> = [
      [LJ_DEFAULT, BULL_DEFAULT],
      [LJ_DEFAULT, 'plainjob c16'],
      [LJ_DEFAULT, 'pg-boss c16'],
      ...(pg?.pairs ?? []),
      [LJ_DEFAULT, 'raw floor b64 + history'],
      [LJ_DEFAULT, 'raw floor b256 + history'],
      [LJ_FAST, bestBull ?? 'BullMQ fastest c16'],
      [LJ_FAST, 'raw floor b16'],
      [LJ_FAST, 'raw floor b64'],
      [LJ_FAST, 'raw floor b256'],
    ];
    const ljDefault = medianOf(rows, LJ_DEFAULT, 'rate');
    return {
      name: 'drain',
      title: this.title,
      description:
        `${n.toLocaleString('en-US')} jobs enqueued first (untimed); the clock runs from starting the workers until the last job's completion is committed. ` +
        '"defaults" keeps completed jobs (and, for litejobs, the history table); "fastest" is each system\'s quickest documented setting.',
      metrics: [throughput],
      config: {
        warmup: WARMUP_NOTE,
        jobs: n,
        concurrency: C,
        [LJ_DEFAULT]: 'createQueue defaults, concurrency 16 (history on, completed jobs kept); timed until stop() has committed every outcome',
        [LJ_FAST]: 'history: false, retention: { completed: 0 } (a job is deleted in the transaction that completes it)',
        [BULL_DEFAULT]: 'Worker concurrency 16, default job options (completed jobs kept); timed until n "completed" events',
        'BullMQ fastest': 'removeOnComplete: true, concurrency 16 / 64 / 256 (the best one is the comparison)',
        'plainjob c16': '16 workers (one job at a time each), pollIntervall 5 ms',
        ...pg?.config,
        'raw floor': 'claim n with one UPDATE … RETURNING, complete them with one UPDATE each, each step one .immediate() transaction',
        'raw floor b64 + history': 'the same at batches of 64, plus a job_history row per claim and per completion (the writes litejobs makes at its defaults)',
        'raw floor b256 + history': 'the same at batches of 256, about what litejobs claims at once at its defaults on a deep backlog of no-op jobs',
      },
      rounds,
      rows,
      ratios: ratios(rows, 'rate', pairs),
      checks: [
        ratioCheck(rows, 'rate', LJ_DEFAULT, BULL_DEFAULT, 3, 'drain defaults ≥ 3× BullMQ defaults'),
        ratioCheck(rows, 'rate', LJ_DEFAULT, 'raw floor b256 + history', 0.9, 'drain defaults ≥ 0.9× the raw floor doing the same writes (b256 + history)'),
        ratioCheck(rows, 'rate', LJ_DEFAULT, 'plainjob c16', 8, 'drain defaults ≥ 8× plainjob'),
        valueCheck(ljDefault, (v) => v >= 40_000, `${fmt(ljDefault)} jobs/s`, 'drain defaults ≥ 40k jobs/s'),
        ratioCheck(rows, 'rate', LJ_FAST, bestBull ?? 'BullMQ fastest c16', 2.5, `drain fastest ≥ 2.5× BullMQ fastest (${bestBull ?? 'n/a'})`),
        ratioCheck(rows, 'rate', LJ_FAST, 'raw floor b16', 0.5, 'drain fastest ≥ 50% of the raw claim+complete floor (batch 16 = concurrency 16)'),
        ...(pg?.checks(rows) ?? []),
      ],
      notes: [...notes, ...(pg?.notes(ctx.quick) ?? [])],
      skipped,
      durationMs: Date.now() - started,
      chartMetric: 'rate',
    };
  },
};

function bestOf(rows: readonly RowResult[], labels: string[]): string | undefined {
  let best: string | undefined;
  let bestValue = -1;
  for (const l of labels) {
    const v = medianOf(rows, l, 'rate');
    if (Number.isFinite(v) && v > bestValue) [best, bestValue] = [l, v];
  }
  return best;
}
