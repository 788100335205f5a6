/**
 * pg-boss 10 against the local PostgreSQL. Each round installs pg-boss into a
 * schema of its own and drops that schema afterwards.
 */
import PgBoss from 'pg-boss';
import type { Payload, Producer, ProducerPeer } from '../lib/producer.js';
import { pgClient } from '../lib/servers.js';
import { uniqueName } from '../lib/tmp.js';
import { JOB } from './litejobs.js';

export interface Boss {
  boss: PgBoss;
  close(): Promise<void>;
}

export async function openBoss(url: string, max = 10): Promise<Boss> {
  const schema = uniqueName('ljbench');
  const boss = new PgBoss({ connectionString: url, schema, supervise: false, schedule: false, max });
  boss.on('error', () => {});
  await boss.start();
  await boss.createQueue(JOB);
  return {
    boss,
    async close() {
      try {
        await boss.stop({ graceful: false, wait: true, timeout: 2000 });
      } finally {
        const client = await pgClient(url);
        try {
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        } finally {
          await client.end();
        }
      }
    },
  };
}

export function pgbossProducer(url: string, count?: number): ProducerPeer {
  return {
    label: 'pg-boss',
    system: 'pg-boss',
    requires: 'postgres',
    ...(count !== undefined ? { count } : {}),
    async open() {
      const { boss, close } = await openBoss(url);
      return {
        one: (p) => boss.send(JOB, p),
        many: (ps) => boss.insert(ps.map((data) => ({ name: JOB, data }))),
        close,
      } satisfies Producer;
    },
  };
}

/** How a pg-boss drain fetches: `batchSize` jobs per fetch, and whether the fetch orders by priority (its default). */
export interface PgbossFetch {
  batchSize: number;
  priority?: boolean;
}

/**
 * Drain `n` no-op jobs: one loop of fetch(batchSize) → the handlers of the
 * batch at once → complete(ids), i.e. what work({ batchSize }) does, minus
 * the polling interval (≥ 0.5 s) work() sleeps between fetches (that would
 * measure the interval, not the queue). Measured here: 16 parallel loops of
 * batchSize 1 are ~5× slower (fetches contend on the same rows).
 */
export async function pgbossDrain(url: string, n: number, fetch: PgbossFetch, timeoutMs: number): Promise<number> {
  const { boss, close } = await openBoss(url);
  try {
    for (let i = 0; i < n; i += 1000) {
      await boss.insert(Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({ name: JOB, data: { i: i + k } })));
    }
    let done = 0;
    const deadline = Date.now() + timeoutMs;
    const noop = async (_p: unknown) => {};
    const loop = async () => {
      for (;;) {
        if (Date.now() > deadline) throw new Error(`pg-boss drain: ${done}/${n} after ${timeoutMs} ms`);
        const jobs = await boss.fetch<Payload>(JOB, { batchSize: fetch.batchSize, priority: fetch.priority ?? true });
        if (jobs.length === 0) return;
        await Promise.all(jobs.map((j) => noop(j.data)));
        await boss.complete(JOB, jobs.map((j) => j.id));
        done += jobs.length;
      }
    };
    const t0 = performance.now();
    await loop();
    const ms = performance.now() - t0;
    if (done !== n) throw new Error(`pg-boss drain: ${done}/${n} completed`);
    return ms;
  } finally {
    await close();
  }
}

/** In-process enqueue-to-start latency with work() at its shortest polling interval (0.5 s). */
export async function pgbossLatency(url: string, samples: number): Promise<number[]> {
  const { boss, close } = await openBoss(url);
  let started: ((t: number) => void) | undefined;
  const out: number[] = [];
  try {
    await boss.work<Payload>(JOB, { pollingIntervalSeconds: 0.5 }, async () => started?.(performance.now()));
    for (let s = 0; s < samples; s++) {
      const at = new Promise<number>((resolve) => (started = resolve));
      const t0 = performance.now();
      await boss.send(JOB, { i: s });
      out.push((await at) - t0);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    await boss.offWork(JOB).catch(() => {});
    await close();
  }
  return out;
}
