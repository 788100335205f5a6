/** enqueue: one job at a time, each awaited before the next. */
import { alternate, WARMUP_NOTE, ratioCheck, ratios, roundsFor, throughput } from '../lib/rounds.js';
import { producerContenders, producerPeers, versusLitejobs } from '../lib/peer-list.js';
import type { Scenario } from '../lib/types.js';
import { LJ_PG } from '../peers/litejobs-pg.js';

export const enqueueScenario: Scenario = {
  name: 'enqueue',
  title: 'Enqueue one at a time (awaited)',
  async run(ctx) {
    const started = Date.now();
    const n = ctx.quick ? 1000 : 5000;
    // Every system on PostgreSQL waits for a commit on the server per call (~0.5–0.75k/s): fewer calls keep the round short.
    const pgN = ctx.quick ? 200 : 1000;
    const rounds = roundsFor(ctx, 5);
    const { peers, skipped } = producerPeers(ctx, pgN);
    const contenders = producerContenders(ctx, peers, async (producer, count = n) => {
      for (let i = 0; i < count; i++) await producer.one({ i });
      return count;
    });
    const rows = await alternate(ctx, 'enqueue', rounds, contenders, { warmup: true });
    const others = versusLitejobs(rows);
    return {
      name: 'enqueue',
      title: this.title,
      description: '`await enqueue(name, payload)` in a loop: each call waits for its commit before the next starts.',
      metrics: [throughput],
      config: {
        warmup: WARMUP_NOTE,
        jobs: n,
        postgresJobs: pgN,
        payload: '{ i: number }',
        litejobs: 'defaults (durability normal, history on)',
        bullmq: 'queue.add, default job options',
        plainjob: 'queue.add (synchronous)',
        [LJ_PG]: 'createQueue({ connection, schema }) defaults, enqueue(); a fresh schema per round',
        'graphile-worker': 'WorkerUtils addJob (pool max 10)',
        pgboss: 'boss.send',
        raw: 'one INSERT per statement (autocommit)',
      },
      rounds,
      rows,
      ratios: ratios(rows, 'rate', others),
      checks: [
        ratioCheck(rows, 'rate', 'litejobs', 'BullMQ', 3, 'enqueue ≥ 3× BullMQ'),
        ratioCheck(rows, 'rate', 'litejobs', 'plainjob', 1.5, 'enqueue ≥ 1.5× plainjob'),
        ratioCheck(rows, 'rate', 'litejobs', 'raw better-sqlite3', 0.95, 'awaited enqueue ≥ 0.95× the raw one-commit-per-insert floor'),
      ],
      notes: [`The systems on PostgreSQL (${LJ_PG}, graphile-worker, pg-boss) send ${pgN} jobs per round instead of ${n}: each call waits for a commit on the server (the rate is per second either way).`],
      skipped,
      durationMs: Date.now() - started,
      chartMetric: 'rate',
    };
  },
};
