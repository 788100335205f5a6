/**
 * composable: what flows, batches, durable steps and transactional enqueue
 * cost next to the plain drain and the plain enqueue, in the same rounds, on
 * SQLite and (when its server answers) on litejobs' PostgreSQL store.
 */
import { skipLine } from '../lib/peer-list.js';
import { alternate, WARMUP_NOTE, ratios, roundsFor, throughput, type Contender } from '../lib/rounds.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import type { Scenario } from '../lib/types.js';
import { dropSchema } from '../peers/graphile.js';
import type { Target } from '../peers/litejobs.js';
import { freshPgTarget } from '../peers/litejobs-pg.js';
import { type DrainShape, jobsOfShape, shapedDrain, STEPS, STEPS_NOTE } from './composable-drain.js';
import { SYNC_PAIRS, syncConfig, syncContenders } from './composable-sync.js';

const C = 16;

interface Store {
  label: string;
  fresh(): { target: Target; drop(): Promise<void> };
}

const shapeLabel = (store: string, shape: DrainShape, parents: number, perParent: number): string =>
  shape === 'plain'
    ? `${store} plain drain`
    : shape === 'batch'
      ? `${store} enqueueBatch + onComplete`
      : shape === 'flow'
        ? `${store} flow ${parents}×${perParent}`
        : `${store} ${STEPS} durable steps per job`;

export const composableScenario: Scenario = {
  name: 'composable',
  title: 'Flows, durable steps and transactional enqueue',
  async run(ctx) {
    const started = Date.now();
    const q = ctx.quick;
    const n = q ? 1000 : 10_000;
    const parents = q ? 10 : 100;
    const perParent = n / parents;
    const syncN = q ? 1000 : 5000;
    const manySyncN = q ? 2000 : 20_000;
    const rounds = roundsFor(ctx, 3);
    const timeoutMs = q ? 30_000 : 240_000;
    const notes = new Set<string>();
    const skipped: string[] = [];

    const stores: Store[] = [
      {
        label: 'litejobs',
        fresh() {
          const path = freshDbPath(ctx.tmpDir, 'lj-composable');
          return { target: path, drop: async () => removeDb(path) };
        },
      },
    ];
    const pgDown = skipLine(ctx, 'litejobs PostgreSQL', 'postgres');
    if (pgDown) skipped.push(pgDown);
    else {
      const url = ctx.servers.postgres.url;
      stores.push({
        label: 'litejobs PostgreSQL',
        fresh() {
          const target = freshPgTarget(url);
          return { target, drop: () => dropSchema(url, target.schema) };
        },
      });
    }

    const contenders: Contender[] = [];
    const pairs: Array<[string, string]> = [];
    for (const store of stores) {
      const label = (shape: DrainShape) => shapeLabel(store.label, shape, parents, perParent);
      for (const shape of ['plain', 'batch', 'flow', 'steps'] as const) {
        contenders.push({
          label: label(shape),
          system: 'litejobs',
          async run() {
            const { target, drop } = store.fresh();
            try {
              const out = await shapedDrain(target, { shape, n, concurrency: C, parents, timeoutMs });
              for (const line of out.notes) notes.add(`${label(shape)}: ${line}`);
              return { rate: n / (out.ms / 1000) };
            } finally {
              await drop();
            }
          },
        });
      }
      pairs.push([label('batch'), label('plain')], [label('flow'), label('plain')], [label('steps'), label('plain')]);
    }
    contenders.push(...syncContenders(ctx.tmpDir, syncN, manySyncN));
    pairs.push(...SYNC_PAIRS);
    for (const line of skipped) ctx.progress(line);

    const rows = await alternate(ctx, 'composable', rounds, contenders, { warmup: true });
    const nf = n.toLocaleString('en-US');
    return {
      name: 'composable',
      title: this.title,
      description:
        `Drains (concurrency ${C}, createQueue defaults, no-op handlers): ${nf} jobs enqueued first (untimed), timed from start() until the last job of the shape has run and stop() has committed every outcome; ` +
        `throughput is the ${nf} no-op jobs over that time, whatever else the shape runs. ` +
        `"plain drain": enqueueMany of 1,000 (the drain scenario's "defaults"). "enqueueBatch + onComplete": the ${nf} as one enqueueBatch, timed until the onComplete job has run. ` +
        `"flow ${parents}×${perParent}": one enqueueFlow, a root whose ${parents} children each have ${perParent} no-op children, timed until the root has run. ` +
        `"${STEPS} durable steps per job": the plain backlog, each handler taking ${STEPS} ctx.step calls with trivial fns. ` +
        'Transactional enqueue (SQLite, queue not started): jobs per second written by enqueueSync / enqueueManySync inside the application\'s own better-sqlite3 transactions, each beside a row of the application\'s, against await enqueue one by one.',
      metrics: [throughput],
      config: {
        warmup: WARMUP_NOTE,
        jobs: n,
        concurrency: C,
        'jobs run per drain': `plain and steps ${jobsOfShape('plain', n, parents)}, batch ${jobsOfShape('batch', n, parents)} (the items and the onComplete job), flow ${jobsOfShape('flow', n, parents)} (leaves, parents, root)`,
        steps: STEPS_NOTE,
        stores: 'each round a fresh SQLite file, or a fresh PostgreSQL schema (ljbench_lj_*) dropped afterwards',
        ...syncConfig(syncN, manySyncN),
      },
      rounds,
      rows,
      ratios: ratios(rows, 'rate', pairs),
      checks: [],
      notes: [...notes, ...(q ? [`--quick: ${nf} jobs (flow ${parents}×${perParent}), ${syncN.toLocaleString('en-US')} one-by-one enqueues, ${manySyncN.toLocaleString('en-US')} by enqueueManySync.`] : [])],
      skipped,
      durationMs: Date.now() - started,
      chartMetric: 'rate',
    };
  },
};
