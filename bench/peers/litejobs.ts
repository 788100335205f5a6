/** litejobs through its public API only (src/index.ts). */
import { pino } from 'pino';
import { createQueue, defineJob, type HandlerContext, type JobLimits, type Queue, type QueueOptions } from '../../src/index.js';
import type { Payload, Producer, ProducerPeer } from '../lib/producer.js';
import { removeDb, freshDbPath } from '../lib/tmp.js';

export const JOB = 'noop';
const silent = pino({ level: 'silent' });

export interface LitejobsSettings {
  concurrency?: number;
  /** Jobs claimed ahead of idle workers (createQueue `prefetch`). */
  prefetch?: number;
  history?: boolean;
  /** `retention: { completed: 0 }`: delete a job in the transaction that completes it. */
  deleteOnComplete?: boolean;
  /** The job definition's `groupConcurrency`, `globalConcurrency`, `rateLimit`. */
  limits?: JobLimits;
  /** createQueue `lease`, ms. */
  lease?: number;
}

export interface Opened {
  queue: Queue;
  /** Set when an option had to be dropped (e.g. `retention` not known to this build). */
  note?: string;
}

/** Where a queue keeps its jobs: a SQLite file, or a schema on a PostgreSQL server. */
export type Target = string | { connection: string; schema: string };

export function openLitejobs(target: Target, s: LitejobsSettings, handler?: (payload: Payload, ctx: HandlerContext) => unknown): Opened {
  const base: QueueOptions = {
    ...(typeof target === 'string' ? { path: target } : target),
    name: 'bench',
    logger: silent,
    ...(s.concurrency !== undefined ? { concurrency: s.concurrency } : {}),
    ...(s.prefetch !== undefined ? { prefetch: s.prefetch } : {}),
    ...(s.history !== undefined ? { history: s.history } : {}),
    ...(s.lease !== undefined ? { lease: s.lease } : {}),
    jobs: handler ? [defineJob<Payload>({ name: JOB, handler, ...s.limits })] : [],
  };
  if (!s.deleteOnComplete) return { queue: createQueue(base) };
  try {
    return { queue: createQueue({ ...base, retention: { completed: 0 } } as QueueOptions) };
  } catch (err) {
    if ((err as { code?: string }).code !== 'LJ_ERR_UNKNOWN_OPTION') throw err;
    return { queue: createQueue(base), note: 'createQueue rejected `retention` (LJ_ERR_UNKNOWN_OPTION): ran with history: false only' };
  }
}

export const litejobsProducer: ProducerPeer = {
  label: 'litejobs',
  system: 'litejobs',
  async open(dir) {
    const path = freshDbPath(dir, 'litejobs');
    const { queue } = openLitejobs(path, {});
    return {
      one: (p) => queue.enqueue(JOB, p),
      many: (ps) => queue.enqueueMany(ps.map((payload) => ({ name: JOB, payload }))),
      async close() {
        await queue.close();
        removeDb(path);
      },
    } satisfies Producer;
  },
};

export async function enqueueInChunks(queue: Queue, n: number, chunk = 1000): Promise<void> {
  for (let i = 0; i < n; i += chunk) {
    const m = Math.min(chunk, n - i);
    await queue.enqueueMany(Array.from({ length: m }, (_, k) => ({ name: JOB, payload: { i: i + k } })));
  }
}

export interface DrainOutcome {
  ms: number;
  handled: number;
  note?: string;
}

/**
 * Opens `target` (which already holds the backlog), starts the workers, and
 * times until `n` handlers have run and stop() has committed their outcomes.
 * `beforeStart` sees the queue before its workers start (untimed).
 */
export async function litejobsDrain(
  target: Target,
  n: number,
  s: LitejobsSettings,
  timeoutMs: number,
  beforeStart?: (queue: Queue) => void,
): Promise<DrainOutcome & { queue: Queue }> {
  let handled = 0;
  let reached!: () => void;
  const done = new Promise<void>((resolve) => (reached = resolve));
  const { queue, note } = openLitejobs(target, s, () => {
    if (++handled === n) reached();
  });
  beforeStart?.(queue);
  const ms = await timedDrain(queue, done, timeoutMs, () => `litejobs drain: ${handled}/${n} handled after ${timeoutMs} ms`);
  return { ms, handled, queue, ...(note ? { note } : {}) };
}

/**
 * Starts the queue and times it until `done`, then stops it (its last
 * outcomes committed): ms. Past `timeoutMs` the queue is closed and the run
 * fails with `why()`.
 */
export async function timedDrain(queue: Queue, done: Promise<unknown>, timeoutMs: number, why: () => string): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(why())), timeoutMs);
  });
  const t0 = performance.now();
  try {
    await queue.start();
    await Promise.race([done, timeout]);
    await queue.stop();
  } catch (err) {
    await queue.close({ timeout: 1000 }).catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return performance.now() - t0;
}
