/**
 * graphile-worker 0.18 against the local PostgreSQL. Each round installs it
 * into a schema of its own (`ljbench_gw_*`) and drops that schema afterwards.
 *
 * Two settings of the runner:
 * - defaults: each of the `concurrency` workers fetches its own job, and
 *   completes it with its own statement;
 * - batched: its documented batching (worker.graphile.org/docs/performance):
 *   a local queue that fetches and locks 500 jobs at once, and completions
 *   (and failures) grouped into one statement per tick
 *   (`completeJobBatchDelay: 0`, `failJobBatchDelay: 0`).
 *
 * graphile-worker deletes a job when it completes (it keeps no finished rows
 * and no history).
 */
import { Logger, makeWorkerUtils, run, type Runner, type WorkerUtils } from 'graphile-worker';
import type { Payload, Producer, ProducerPeer } from '../lib/producer.js';
import { pgClient } from '../lib/servers.js';
import { uniqueName } from '../lib/tmp.js';
import { JOB } from './litejobs.js';

export type GraphileMode = 'defaults' | 'batched';

const silent = new Logger(() => () => {});

/** The preset of the batched mode (the options the defaults leave off). */
export const BATCHED_PRESET = { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } };

export function dropSchema(url: string, schema: string): Promise<void> {
  return pgClient(url).then(async (client) => {
    try {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await client.end();
    }
  });
}

export interface GraphileSchema {
  schema: string;
  utils: WorkerUtils;
  close(): Promise<void>;
}

/** A migrated schema of its own, with the utils that add jobs to it; close() drops it. */
export async function openGraphile(url: string): Promise<GraphileSchema> {
  const schema = uniqueName('ljbench_gw');
  const utils = await makeWorkerUtils({ connectionString: url, schema, logger: silent });
  try {
    await utils.migrate();
  } catch (err) {
    await utils.release();
    await dropSchema(url, schema);
    throw err;
  }
  return {
    schema,
    utils,
    async close() {
      try {
        await utils.release();
      } finally {
        await dropSchema(url, schema);
      }
    },
  };
}

/** A runner on `schema` running `handler` for the noop task; stop it with `runner.stop()`. */
export function startGraphile(url: string, schema: string, mode: GraphileMode, concurrency: number, handler: (payload: Payload) => unknown): Promise<Runner> {
  return run({
    connectionString: url,
    schema,
    concurrency,
    // A pool at least as large as the workers, as its docs advise (`concurrentJobs + 2`).
    maxPoolSize: Math.max(10, concurrency + 2),
    noHandleSignals: true,
    logger: silent,
    taskList: { [JOB]: async (payload) => void handler(payload as Payload) },
    ...(mode === 'batched' ? { preset: BATCHED_PRESET } : {}),
  });
}

export function graphileProducer(url: string, count?: number): ProducerPeer {
  return {
    label: 'graphile-worker',
    system: 'graphile-worker',
    requires: 'postgres',
    ...(count !== undefined ? { count } : {}),
    async open() {
      const { utils, close } = await openGraphile(url);
      return {
        one: (p) => utils.addJob(JOB, p),
        many: (ps) => utils.addJobs(ps.map((payload) => ({ identifier: JOB, payload }))),
        close,
      } satisfies Producer;
    },
  };
}

/**
 * Drain `n` no-op jobs added beforehand (addJobs of 1000, untimed): times
 * from starting the runner until the n-th handler has run, stop() has
 * returned and every job's completion is committed (the job table is empty).
 */
export async function graphileDrain(url: string, n: number, concurrency: number, mode: GraphileMode, timeoutMs: number): Promise<number> {
  const { schema, utils, close } = await openGraphile(url);
  try {
    for (let i = 0; i < n; i += 1000) {
      await utils.addJobs(Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({ identifier: JOB, payload: { i: i + k } })));
    }
    let handled = 0;
    let reached!: () => void;
    const done = new Promise<void>((resolve) => (reached = resolve));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`graphile-worker drain: ${handled}/${n} handled after ${timeoutMs} ms`)), timeoutMs);
    });
    const t0 = performance.now();
    const runner = await startGraphile(url, schema, mode, concurrency, () => {
      if (++handled === n) reached();
    });
    try {
      await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
      await runner.stop();
    }
    // Without batching a worker does not wait for its completion's commit, nor does stop(): the
    // clock stops once every job is gone (completing deletes it).
    const left = () => utils.withPgClient((c) => c.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}"._private_jobs`)).then((r) => Number(r.rows[0]?.n));
    let remaining = await left();
    for (const until = Date.now() + 5000; remaining !== 0 && Date.now() < until; remaining = await left()) await new Promise((r) => setTimeout(r, 1));
    const ms = performance.now() - t0;
    if (remaining !== 0) throw new Error(`graphile-worker drain: ${remaining} jobs left 5 s after the drain`);
    return ms;
  } finally {
    await close();
  }
}
