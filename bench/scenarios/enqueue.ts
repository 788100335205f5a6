/** enqueue: one job at a time, each awaited before the next. */
import { alternate, WARMUP_NOTE, ratioCheck, ratios, roundsFor, throughput } from '../lib/rounds.js';
import { producerContenders, producerPeers, versusLitejobs } from '../lib/peer-list.js';
import type { Scenario } from '../lib/types.js';

export const enqueueScenario: Scenario = {
  name: 'enqueue',
  title: 'Enqueue one at a time (awaited)',
  async run(ctx) {
    const started = Date.now();
    const n = ctx.quick ? 1000 : 5000;
    const pgbossN = ctx.quick ? 200 : 1000; // ~0.75k/s: fewer sends keep the round short
    const rounds = roundsFor(ctx, 5);
    const { peers, skipped } = producerPeers(ctx, pgbossN);
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
      config: { warmup: WARMUP_NOTE, jobs: n, pgbossJobs: pgbossN, payload: '{ i: number }', litejobs: 'defaults (durability normal, history on)', bullmq: 'queue.add, default job options', plainjob: 'queue.add (synchronous)', pgboss: 'boss.send', raw: 'one INSERT per statement (autocommit)' },
      rounds,
      rows,
      ratios: ratios(rows, 'rate', others),
      checks: [
        ratioCheck(rows, 'rate', 'litejobs', 'BullMQ', 3, 'enqueue ≥ 3× BullMQ'),
        ratioCheck(rows, 'rate', 'litejobs', 'plainjob', 1.5, 'enqueue ≥ 1.5× plainjob'),
        ratioCheck(rows, 'rate', 'litejobs', 'raw better-sqlite3', 0.8, 'enqueue ≥ 80% of the raw INSERT floor'),
      ],
      notes: [`pg-boss sends ${pgbossN} jobs per round instead of ${n} (it is ~20× slower; the rate is per second either way).`],
      skipped,
      durationMs: Date.now() - started,
      chartMetric: 'rate',
    };
  },
};
