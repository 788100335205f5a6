/**
 * One drain round of the composable scenario, on a fresh SQLite file or
 * PostgreSQL schema: `n` no-op jobs enqueued untimed in one of four shapes
 * (plain, one batch with an onComplete job, a two-level flow, each job
 * taking three durable steps), then timed from start() until the shape's last
 * job has run and stop() has committed every outcome.
 */
import { pino } from 'pino';
import { createQueue, defineJob, type AnyJob, type Queue } from '../../src/index.js';
import type { Payload } from '../lib/producer.js';
import { enqueueInChunks, JOB, timedDrain, type Target } from '../peers/litejobs.js';

export type DrainShape = 'plain' | 'batch' | 'flow' | 'steps';

/** The batch's onComplete job, the flow's root and its parents. */
const CALLBACK = 'batch-done';
const ROOT = 'flow-root';
const PARENT = 'flow-parent';
/** The durable steps each job of the `steps` shape takes. */
export const STEPS = 3;

const silent = pino({ level: 'silent' });

export interface ShapedDrainOptions {
  shape: DrainShape;
  /** The no-op jobs (the batch's items, the flow's leaves). */
  n: number;
  concurrency: number;
  /** Parents of the flow shape: n / parents leaves each. */
  parents: number;
  timeoutMs: number;
}

export interface ShapedDrainOutcome {
  ms: number;
  notes: string[];
}

/** The jobs of one shape, enqueued by a queue that runs none of them (as the drain scenario's producer). */
async function enqueueShape(queue: Queue, o: ShapedDrainOptions): Promise<void> {
  const item = (i: number) => ({ name: JOB, payload: { i } });
  if (o.shape === 'plain' || o.shape === 'steps') return enqueueInChunks(queue, o.n);
  if (o.shape === 'batch') {
    await queue.enqueueBatch(Array.from({ length: o.n }, (_, i) => item(i)), { onComplete: { name: CALLBACK, payload: {} } });
    return;
  }
  const per = Math.ceil(o.n / o.parents);
  const children = Array.from({ length: o.parents }, (_, p) => ({
    name: PARENT,
    payload: { p },
    children: Array.from({ length: Math.min(per, o.n - p * per) }, (_, k) => item(p * per + k)),
  }));
  await queue.enqueueFlow({ name: ROOT, payload: {}, children });
}

export async function shapedDrain(target: Target, o: ShapedDrainOptions): Promise<ShapedDrainOutcome> {
  const notes: string[] = [];
  const base = { ...(typeof target === 'string' ? { path: target } : target), name: 'bench', logger: silent };
  const producer = createQueue({ ...base, jobs: [] });
  try {
    await enqueueShape(producer, o);
  } finally {
    await producer.close();
  }

  let handled = 0;
  let parentsRun = 0;
  let reached!: () => void;
  const done = new Promise<void>((resolve) => (reached = resolve));
  // The plain and steps shapes end with their n-th job; the batch with its callback, the flow with its root.
  const endsWithLast = o.shape === 'plain' || o.shape === 'steps';
  const finish = (what: string) => {
    if (handled !== o.n) notes.push(`${what} ran after ${handled}/${o.n} jobs`);
    reached();
  };
  const jobs: AnyJob[] = [
    defineJob<Payload>({
      name: JOB,
      handler: async (_payload, ctx) => {
        if (o.shape === 'steps') for (let s = 0; s < STEPS; s++) await ctx.step(`s${s}`, () => s);
        if (++handled === o.n && endsWithLast) reached();
      },
    }),
    defineJob<Record<string, never>>({ name: CALLBACK, handler: () => finish('the onComplete job') }),
    defineJob<{ p: number }>({ name: PARENT, handler: () => void parentsRun++ }),
    defineJob<Record<string, never>>({
      name: ROOT,
      handler: () => {
        if (parentsRun !== o.parents) notes.push(`the root ran after ${parentsRun}/${o.parents} parents`);
        finish('the root');
      },
    }),
  ];
  const queue = createQueue({ ...base, concurrency: o.concurrency, jobs });
  const ms = await timedDrain(queue, done, o.timeoutMs, () => `${o.shape} drain: ${handled}/${o.n} handled after ${o.timeoutMs} ms`);
  try {
    const stats = await queue.stats();
    const left = Object.entries(stats.byState).filter(([state, count]) => state !== 'completed' && (count ?? 0) > 0);
    if (left.length > 0) notes.push(`jobs not completed after the drain: ${JSON.stringify(Object.fromEntries(left))}`);
  } finally {
    await queue.close();
  }
  return { ms, notes };
}

/** What the `steps` shape's jobs do, for the scenario's config. */
export const STEPS_NOTE = `each job: ${STEPS} × await ctx.step(name, () => k) (a trivial fn whose result is stored), then returns`;

export const jobsOfShape = (shape: DrainShape, n: number, parents: number): number =>
  shape === 'batch' ? n + 1 : shape === 'flow' ? n + parents + 1 : n;
