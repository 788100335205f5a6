/** burst: many enqueue calls in flight at once, as an HTTP ingestion burst makes. */
import { alternate, WARMUP_NOTE, ratioCheck, ratios, roundsFor, throughput } from '../lib/rounds.js';
import { producerContenders, producerPeers, versusLitejobs } from '../lib/peer-list.js';
import type { Scenario } from '../lib/types.js';
import { LJ_PG } from '../peers/litejobs-pg.js';

export const burstScenario: Scenario = {
  name: 'burst',
  title: 'Concurrent enqueues (all in flight at once)',
  async run(ctx) {
    const started = Date.now();
    const n = ctx.quick ? 2000 : 10_000;
    const rounds = roundsFor(ctx, 5);
    const { peers, skipped } = producerPeers(ctx);
    const contenders = producerContenders(ctx, peers, async (producer) => {
      await Promise.all(Array.from({ length: n }, (_, i) => producer.one({ i })));
      return n;
    });
    const rows = await alternate(ctx, 'burst', rounds, contenders, { warmup: true });
    const others = versusLitejobs(rows);
    return {
      name: 'burst',
      title: this.title,
      description: `\`Promise.all\` of ${n.toLocaleString('en-US')} single-job enqueue calls; the clock stops when the last one has resolved.`,
      metrics: [throughput],
      config: {
        warmup: WARMUP_NOTE,
        jobs: n,
        inFlight: n,
        litejobs: 'enqueue() (concurrent calls may be grouped into one commit)',
        bullmq: 'queue.add',
        plainjob: 'queue.add (synchronous: calls run one after another)',
        [LJ_PG]: 'enqueue() on PostgreSQL at the defaults (concurrent calls grouped into one commit; pool of 5 connections)',
        'graphile-worker': 'WorkerUtils addJob, the same number in flight (pool max 10)',
        pgboss: 'boss.send, pool max 10',
        raw: 'one INSERT per call (no grouping: the per-transaction floor)',
      },
      rounds,
      rows,
      ratios: ratios(rows, 'rate', others),
      checks: [
        ratioCheck(rows, 'rate', 'litejobs', 'BullMQ', 5, '10k concurrent enqueues ≥ 5× BullMQ'),
        ratioCheck(rows, 'rate', LJ_PG, 'graphile-worker', 2, 'PostgreSQL concurrent enqueues ≥ 2× graphile-worker addJob (same number in flight)'),
      ],
      notes: [],
      skipped,
      durationMs: Date.now() - started,
      chartMetric: 'rate',
    };
  },
};
