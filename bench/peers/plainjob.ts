/** plainjob 0.0.14 on better-sqlite3 (its own schema and pragmas: WAL, synchronous=1). */
import Database from 'better-sqlite3';
import { better, defineQueue, defineWorker, type Queue } from 'plainjob';
import type { Payload, Producer, ProducerPeer } from '../lib/producer.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import { JOB } from './litejobs.js';

const silent = { error() {}, warn() {}, info() {}, debug() {} };

export function openPlainjob(path: string): { queue: Queue; close(): void } {
  const queue = defineQueue({ connection: better(new Database(path)), logger: silent, maintenanceInterval: 3_600_000 });
  return {
    queue,
    close() {
      queue.close();
      removeDb(path);
    },
  };
}

export const plainjobProducer: ProducerPeer = {
  label: 'plainjob',
  system: 'plainjob',
  async open(dir) {
    const { queue, close } = openPlainjob(freshDbPath(dir, 'plainjob'));
    return {
      async one(p) {
        return queue.add(JOB, p);
      },
      async many(ps) {
        return queue.addMany(JOB, ps);
      },
      async close() {
        close();
      },
    } satisfies Producer;
  },
};

/** `concurrency` workers (plainjob runs one job at a time per worker), timed until `n` jobs are done. */
export async function plainjobDrain(dir: string, n: number, concurrency: number, timeoutMs: number): Promise<number> {
  const { queue, close } = openPlainjob(freshDbPath(dir, 'plainjob-drain'));
  for (let i = 0; i < n; i += 1000) queue.addMany(JOB, Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({ i: i + k })));
  let done = 0;
  let reached!: () => void;
  const all = new Promise<void>((resolve) => (reached = resolve));
  const workers = Array.from({ length: concurrency }, () =>
    defineWorker(JOB, async () => {}, { queue, logger: silent, pollIntervall: 5, onCompleted: () => ++done === n && reached() }),
  );
  let timer: NodeJS.Timeout | undefined;
  const t0 = performance.now();
  const loops = workers.map((w) => w.start());
  try {
    await Promise.race([all, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`plainjob drain: ${done}/${n} after ${timeoutMs} ms`)), timeoutMs)))]);
    return performance.now() - t0;
  } finally {
    clearTimeout(timer);
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.allSettled(loops);
    close();
  }
}

/** Enqueue-to-start latency, idle, one job at a time; the worker polls every `pollMs`. */
export async function plainjobLatency(dir: string, samples: number, pollMs: number): Promise<number[]> {
  const { queue, close } = openPlainjob(freshDbPath(dir, 'plainjob-latency'));
  let started: ((t: number) => void) | undefined;
  const worker = defineWorker(JOB, async () => started?.(performance.now()), { queue, logger: silent, pollIntervall: pollMs });
  const loop = worker.start();
  const out: number[] = [];
  try {
    for (let s = 0; s < samples; s++) {
      const at = new Promise<number>((resolve) => (started = resolve));
      const t0 = performance.now();
      queue.add(JOB, { i: s } satisfies Payload);
      out.push((await at) - t0);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    await worker.stop();
    await loop.catch(() => {});
    close();
  }
  return out;
}
