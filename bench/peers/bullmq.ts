/**
 * BullMQ 6 + ioredis against the local Redis. Each round uses a queue name of
 * its own under the prefix `ljbench`; cleanup obliterates that queue and
 * unlinks any key left under its exact prefix (never FLUSHALL).
 */
import { Queue, Worker, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { Payload, Producer, ProducerPeer } from '../lib/producer.js';
import { REDIS_URL, redisClient } from '../lib/servers.js';
import { uniqueName } from '../lib/tmp.js';
import { JOB } from './litejobs.js';

export const PREFIX = 'ljbench';

export function connection(): ConnectionOptions {
  const u = new URL(REDIS_URL);
  return { host: u.hostname, port: Number(u.port || 6379), maxRetriesPerRequest: null };
}

export function openBull(name = uniqueName('q')): Queue {
  const queue = new Queue(name, { connection: connection(), prefix: PREFIX });
  queue.on('error', () => {});
  return queue;
}

/** Removes the queue's keys: obliterate, then any stragglers under `ljbench:<name>:`. */
export async function removeBull(queue: Queue): Promise<void> {
  try {
    await queue.obliterate({ force: true, count: 5000 });
  } finally {
    await queue.close();
    const client = redisClient();
    try {
      await client.connect();
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${PREFIX}:${queue.name}:*`, 'COUNT', 1000);
        if (keys.length > 0) await client.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
      await client.unlink(`${PREFIX}:${queue.name}`);
    } finally {
      client.disconnect();
    }
  }
}

export const bullmqProducer: ProducerPeer = {
  label: 'BullMQ',
  system: 'bullmq',
  requires: 'redis',
  async open() {
    const queue = openBull();
    await queue.waitUntilReady();
    return {
      one: (p) => queue.add(JOB, p),
      many: (ps) => queue.addBulk(ps.map((data) => ({ name: JOB, data }))),
      close: () => removeBull(queue),
    } satisfies Producer;
  },
};

export async function bullAddMany(queue: Queue, n: number, opts?: JobsOptions, inFlight = 1): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) {
      const from = next;
      next = Math.min(n, next + 1000);
      await queue.addBulk(Array.from({ length: next - from }, (_, k) => ({ name: JOB, data: { i: from + k }, ...(opts ? { opts } : {}) })));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
}

/**
 * Drain a backlog of `n` no-op jobs: `removeOnComplete` false = BullMQ's
 * defaults (completed jobs kept), true = its fastest setting. Times from
 * worker start until `n` 'completed' events.
 */
export async function bullDrain(n: number, concurrency: number, removeOnComplete: boolean, timeoutMs: number): Promise<number> {
  const queue = openBull();
  let worker: Worker | undefined;
  try {
    await bullAddMany(queue, n, removeOnComplete ? { removeOnComplete: true } : undefined, 4);
    let done = 0;
    let reached!: () => void;
    const all = new Promise<void>((resolve) => (reached = resolve));
    worker = new Worker(queue.name, async () => {}, { connection: connection(), prefix: PREFIX, concurrency, autorun: false });
    worker.on('error', () => {});
    worker.on('completed', () => ++done === n && reached());
    await worker.waitUntilReady();
    let timer: NodeJS.Timeout | undefined;
    const t0 = performance.now();
    void worker.run().catch(() => {});
    try {
      await Promise.race([all, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`BullMQ drain: ${done}/${n} after ${timeoutMs} ms`)), timeoutMs)))]);
    } finally {
      clearTimeout(timer);
    }
    return performance.now() - t0;
  } finally {
    await worker?.close(true).catch(() => {});
    await removeBull(queue);
  }
}

/** In-process enqueue-to-start latency, idle worker, one job at a time. */
export async function bullLatency(samples: number): Promise<number[]> {
  const queue = openBull();
  let started: ((t: number) => void) | undefined;
  const worker = new Worker(queue.name, async () => started?.(performance.now()), { connection: connection(), prefix: PREFIX, concurrency: 1 });
  worker.on('error', () => {});
  const out: number[] = [];
  try {
    await worker.waitUntilReady();
    await queue.waitUntilReady();
    await new Promise((r) => setTimeout(r, 50)); // let the worker reach its blocking wait
    for (let s = 0; s < samples; s++) {
      const at = new Promise<number>((resolve) => (started = resolve));
      const t0 = performance.now();
      await queue.add(JOB, { i: s } satisfies Payload);
      out.push((await at) - t0);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    await worker.close();
    await removeBull(queue);
  }
  return out;
}
