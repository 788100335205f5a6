/** large: drain throughput with 1M rows already in the table vs the same drain with 10k rows. */
import { copyFileSync } from 'node:fs';
import { buildLitejobsDb, type Fill } from '../lib/build-db.js';
import { alternate, ratioCheck, ratios, roundsFor, throughput, type Contender } from '../lib/rounds.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import type { Scenario } from '../lib/types.js';
import { litejobsDrain } from '../peers/litejobs.js';
import { openRaw, rawDrain } from '../peers/raw-sqlite.js';

const C = 16;

export const largeScenario: Scenario = {
  name: 'large',
  title: 'Drain with a large table',
  async run(ctx) {
    const started = Date.now();
    const q = ctx.quick;
    const big: Fill = q ? { completed: 45_000, pending: 5_000 } : { completed: 900_000, pending: 100_000 };
    const small: Fill = { completed: 0, pending: 10_000 };
    const drain = q ? 5_000 : 10_000;
    const rounds = roundsFor(ctx, 3);
    const bigRows = big.completed + big.pending;
    const bigLabel = `${bigRows >= 1e6 ? `${bigRows / 1e6}M` : `${bigRows / 1e3}k`} rows`;
    const templates = { big: freshDbPath(ctx.tmpDir, 'large-template'), small: freshDbPath(ctx.tmpDir, 'small-template') };
    const t0 = Date.now();
    await buildLitejobsDb(templates.big, big);
    await buildLitejobsDb(templates.small, small);
    ctx.progress(`large: built ${bigRows.toLocaleString('en-US')} + ${small.pending.toLocaleString('en-US')} row templates in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const rate = (ms: number) => ({ rate: drain / (ms / 1000) });
    const litejobs = (label: string, template: string): Contender => ({
      label,
      system: 'litejobs',
      async run() {
        const path = freshDbPath(ctx.tmpDir, 'large');
        copyFileSync(template, path);
        try {
          const out = await litejobsDrain(path, drain, { concurrency: C }, q ? 30_000 : 120_000);
          await out.queue.close();
          return rate(out.ms);
        } finally {
          removeDb(path);
        }
      },
    });
    const raw = (label: string, template: string): Contender => ({
      label,
      system: 'raw',
      async run() {
        const path = freshDbPath(ctx.tmpDir, 'large-raw');
        copyFileSync(template, path);
        const db = openRaw(path);
        try {
          const t = performance.now();
          const done = await rawDrain(db, C, drain);
          if (done !== drain) throw new Error(`raw drain: ${done}/${drain}`);
          return rate(performance.now() - t);
        } finally {
          db.close();
          removeDb(path);
        }
      },
    });
    const LJ_BIG = `litejobs, ${bigLabel}`;
    const LJ_SMALL = 'litejobs, 10k rows';
    const RAW_BIG = `raw floor b16, ${bigLabel}`;
    const RAW_SMALL = 'raw floor b16, 10k rows';
    try {
      const rows = await alternate(ctx, 'large', rounds, [litejobs(LJ_BIG, templates.big), litejobs(LJ_SMALL, templates.small), raw(RAW_BIG, templates.big), raw(RAW_SMALL, templates.small)]);
      return {
        name: 'large',
        title: this.title,
        description:
          `The same drain of ${drain.toLocaleString('en-US')} no-op jobs at concurrency ${C} from a table of ${bigRows.toLocaleString('en-US')} rows ` +
          `(${big.completed.toLocaleString('en-US')} completed + ${big.pending.toLocaleString('en-US')} pending) and from a table of 10,000 pending rows. ` +
          'The rows are written with plain INSERTs into a file litejobs created (history table empty), copied fresh for each round.',
        metrics: [throughput],
        config: {
          big,
          small,
          drained: drain,
          concurrency: C,
          litejobs: 'createQueue defaults (history on, completed jobs kept); timed until stop() has committed every outcome',
          raw: 'claim+complete in batches of 16, as in the drain scenario',
        },
        rounds,
        rows,
        ratios: ratios(rows, 'rate', [[LJ_BIG, LJ_SMALL], [RAW_BIG, RAW_SMALL], [LJ_BIG, RAW_BIG]]),
        checks: [ratioCheck(rows, 'rate', LJ_BIG, LJ_SMALL, 0.8, `drain with ${bigLabel} ≥ 80% of the 10k-row figure`)],
        notes: q ? [`--quick: the large table holds ${bigLabel}, not 1M.`] : [],
        skipped: [],
        durationMs: Date.now() - started,
        chartMetric: 'rate',
      };
    } finally {
      removeDb(templates.big);
      removeDb(templates.small);
    }
  },
};
