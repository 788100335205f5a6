/** bulk: enqueueMany / addBulk / insert in batches of 1000. */
import { payloads } from '../lib/producer.js';
import { alternate, WARMUP_NOTE, ratioCheck, ratios, roundsFor, throughput } from '../lib/rounds.js';
import { producerContenders, producerPeers, versusLitejobs } from '../lib/peer-list.js';
import type { Scenario } from '../lib/types.js';
import { LJ_PG } from '../peers/litejobs-pg.js';

export const bulkScenario: Scenario = {
  name: 'bulk',
  title: 'Batches of 1000 (enqueueMany / addBulk / insert)',
  async run(ctx) {
    const started = Date.now();
    const n = ctx.quick ? 10_000 : 50_000;
    const batch = 1000;
    const rounds = roundsFor(ctx, 5);
    const { peers, skipped } = producerPeers(ctx);
    // Payloads are built once, outside the timed part.
    const batches = Array.from({ length: n / batch }, (_, b) => payloads(batch, b * batch));
    const contenders = producerContenders(ctx, peers, async (producer) => {
      for (const b of batches) await producer.many(b);
      return n;
    });
    const rows = await alternate(ctx, 'bulk', rounds, contenders, { warmup: true });
    const others = versusLitejobs(rows);
    return {
      name: 'bulk',
      title: this.title,
      description: `${(n / batch).toLocaleString('en-US')} sequential calls of ${batch} jobs each.`,
      metrics: [throughput],
      config: {
        warmup: WARMUP_NOTE,
        jobs: n,
        batch,
        litejobs: 'enqueueMany (one transaction per call)',
        bullmq: 'queue.addBulk',
        plainjob: 'queue.addMany',
        [LJ_PG]: 'enqueueMany on PostgreSQL (one transaction, one multi-row INSERT per call)',
        'graphile-worker': 'WorkerUtils addJobs',
        pgboss: 'boss.insert',
        raw: 'one .immediate() transaction of 1000 INSERTs',
      },
      rounds,
      rows,
      ratios: ratios(rows, 'rate', others),
      checks: [
        ratioCheck(rows, 'rate', 'litejobs', 'BullMQ', 8, 'enqueueMany ×1000 ≥ 8× BullMQ addBulk'),
        ratioCheck(rows, 'rate', 'litejobs', 'raw better-sqlite3', 0.6, 'enqueueMany ×1000 ≥ 60% of the raw batched floor'),
      ],
      notes: [],
      skipped,
      durationMs: Date.now() - started,
      chartMetric: 'rate',
    };
  },
};
