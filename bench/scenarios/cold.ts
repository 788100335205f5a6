/**
 * cold: a backlog drained by a process started for it, as a deployment's
 * first minutes or a scheduled batch job run it. Nothing is compiled, cached,
 * connected or prepared before the timed span (start, drain, close), so it
 * shows how soon a system reaches full speed: the first 1,000 jobs' rate
 * against the rest's. The drain scenario measures the steady state instead
 * (a warm process, after an untimed round).
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../lib/machine-info.js';
import { exited, forkChild, nextMessage } from '../lib/child.js';
import { skipLine } from '../lib/peer-list.js';
import { alternate, medianOf, ratioCheck, ratios, roundsFor, throughput, valueCheck, type Contender } from '../lib/rounds.js';
import { fmt } from '../lib/stats.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import type { Metric, Scenario } from '../lib/types.js';
import { openGraphile } from '../peers/graphile.js';
import { enqueueInChunks, JOB, openLitejobs } from '../peers/litejobs.js';
import { freshPgTarget } from '../peers/litejobs-pg.js';
import { dropSchema } from '../peers/graphile.js';

const LJ_SQLITE = 'litejobs SQLite defaults, cold';
const LJ_PG = 'litejobs PostgreSQL defaults, cold';
const GW = 'graphile-worker batched, cold';
/** The first jobs, whose rate is set against the rest's (children/cold-drain.ts FIRST). */
const FIRST = 1000;

const FIRST_RATE: Metric = { key: 'firstRate', label: `first ${FIRST.toLocaleString('en')} jobs`, unit: 'jobs/s', better: 'higher' };
const REST_RATE: Metric = { key: 'restRate', label: 'the rest', unit: 'jobs/s', better: 'higher' };
const TO_FULL: Metric = { key: 'toFull', label: 'first / rest', unit: '×', better: 'higher' };

type Done = { type: 'done'; ms: number; first: number };
const isDone = (m: unknown): m is Done => (m as Done).type === 'done';

/** Runs one cold drain in a child: its rates, whole and split at the FIRST-th job. */
async function coldDrain(args: string[], n: number, timeoutMs: number): Promise<Record<string, number>> {
  const child: ChildProcess = forkChild('cold-drain.ts', args);
  try {
    const { ms, first } = await nextMessage(child, isDone, timeoutMs);
    const firstRate = FIRST / (first / 1000);
    const restRate = (n - FIRST) / ((ms - first) / 1000);
    return { rate: n / (ms / 1000), firstRate, restRate, toFull: firstRate / restRate };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited(child, 10_000);
  }
}

export const coldScenario: Scenario = {
  name: 'cold',
  title: 'Drain a backlog from a cold process: time to full speed',
  async run(ctx) {
    const started = Date.now();
    // The children load litejobs from dist/: built from the sources as they are (skipped when up to date).
    const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build-stamp.mjs'), 'ensure'], { cwd: ROOT, stdio: 'ignore' });
    if (built.status !== 0) throw new Error('cold: the build of dist/ failed (npm run build says why)');
    const n = ctx.quick ? 5000 : 20_000;
    const rounds = roundsFor(ctx, 3);
    const timeoutMs = ctx.quick ? 60_000 : 180_000;
    const skipped: string[] = [];
    const contenders: Contender[] = [
      {
        label: LJ_SQLITE,
        system: 'litejobs',
        async run() {
          const path = freshDbPath(ctx.tmpDir, 'lj-cold');
          try {
            const { queue } = openLitejobs(path, {});
            await enqueueInChunks(queue, n);
            await queue.close();
            return await coldDrain(['litejobs', path, String(n)], n, timeoutMs);
          } finally {
            removeDb(path);
          }
        },
      },
    ];
    const pgDown = skipLine(ctx, 'the PostgreSQL contenders', 'postgres');
    if (pgDown) skipped.push(pgDown);
    else {
      const url = ctx.servers.postgres.url;
      contenders.push(
        {
          label: LJ_PG,
          system: 'litejobs',
          async run() {
            const target = freshPgTarget(url);
            try {
              const { queue } = openLitejobs(target, {});
              await enqueueInChunks(queue, n);
              await queue.close();
              return await coldDrain(['litejobs-pg', url, target.schema, String(n)], n, timeoutMs);
            } finally {
              await dropSchema(url, target.schema);
            }
          },
        },
        {
          label: GW,
          system: 'graphile-worker',
          async run() {
            const { schema, utils, close } = await openGraphile(url);
            try {
              for (let i = 0; i < n; i += 1000) await utils.addJobs(Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({ identifier: JOB, payload: { i: i + k } })));
              return await coldDrain(['graphile', url, schema, String(n)], n, timeoutMs);
            } finally {
              await close();
            }
          },
        },
      );
    }
    for (const line of skipped) ctx.progress(line);
    const rows = await alternate(ctx, 'cold', rounds, contenders, { rotate: true });
    const pairs: Array<[string, string]> = pgDown ? [] : [[LJ_PG, GW]];
    const toFull = (label: string) => medianOf(rows, label, 'toFull');
    return {
      name: 'cold',
      title: this.title,
      description:
        `${n.toLocaleString('en')} no-op jobs enqueued beforehand; a Node process started for the drain (litejobs loaded from its build, dist/) creates the queue (or graphile-worker's runner) at concurrency 16 with its defaults ` +
        `(graphile-worker with its documented batching: a local queue of 500, completions batched), and is timed from just before that, after its imports, ` +
        `until it has stopped with every outcome written (graphile-worker: until its job table is empty). The first ${FIRST.toLocaleString('en')} jobs' rate (to the ${FIRST.toLocaleString('en')}th handler) is set against the rest's: ` +
        'near 1× means full speed from the first job.',
      metrics: [throughput, FIRST_RATE, REST_RATE, TO_FULL],
      config: { jobs: n, concurrency: 16, rounds: `${rounds}, a fresh database and process each` },
      rounds,
      rows,
      ratios: ratios(rows, 'rate', pairs),
      checks: [
        ...(pgDown ? [] : [ratioCheck(rows, 'rate', LJ_PG, GW, 1.2, `PostgreSQL drain at defaults, ${n.toLocaleString('en')} jobs from a cold process ≥ 1.2× graphile-worker batched`)]),
        valueCheck(toFull(LJ_SQLITE), (x) => x >= 0.5, `${fmt(toFull(LJ_SQLITE))}×`, `SQLite: the first ${FIRST.toLocaleString('en')} jobs at ≥ 0.5× the rest's rate (time to full speed)`),
        ...(pgDown ? [] : [valueCheck(toFull(LJ_PG), (x) => x >= 0.5, `${fmt(toFull(LJ_PG))}×`, `PostgreSQL: the first ${FIRST.toLocaleString('en')} jobs at ≥ 0.5× the rest's rate (time to full speed)`)]),
      ],
      notes: [],
      skipped,
      durationMs: Date.now() - started,
      chartMetric: 'rate',
    };
  },
};
