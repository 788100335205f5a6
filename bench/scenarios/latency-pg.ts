/**
 * The latency scenario's PostgreSQL contenders: litejobs' PostgreSQL store
 * and graphile-worker 0.18 (both wake their workers with LISTEN/NOTIFY), in
 * process and from a producer in another process, on the same local server.
 */
import { fromChild, type Started } from '../lib/cross-process.js';
import { medianOf, valueCheck, type Contender } from '../lib/rounds.js';
import { fmt, percentile, sleep, withTimeout } from '../lib/stats.js';
import type { Check, RowResult } from '../lib/types.js';
import { dropSchema, openGraphile, startGraphile } from '../peers/graphile.js';
import { JOB, openLitejobs } from '../peers/litejobs.js';
import { freshPgTarget } from '../peers/litejobs-pg.js';

export const LJ_PG_IN = 'litejobs PostgreSQL in-process';
export const LJ_PG_X = 'litejobs PostgreSQL cross-process';
export const GW_IN = 'graphile-worker in-process';
export const GW_X = 'graphile-worker cross-process';

const pcts = (xs: number[]) => ({ p50: percentile(xs, 50), p99: percentile(xs, 99) });

/** In-process samples: enqueue one job, wait for its handler to start, 2 ms apart. */
async function samplesInProcess(samples: number, waiter: { resolve?: (at: number) => void }, enqueue: (i: number) => Promise<unknown>, what: string): Promise<number[]> {
  const out: number[] = [];
  for (let s = 0; s < samples; s++) {
    const at = new Promise<number>((resolve) => (waiter.resolve = resolve));
    const t0 = performance.now();
    await enqueue(s);
    out.push((await withTimeout(at, 10_000, what)) - t0);
    await sleep(2);
  }
  return out;
}

async function litejobsPg(url: string, samples: number, cross: boolean): Promise<number[]> {
  const target = freshPgTarget(url);
  const inProcess: { resolve?: (at: number) => void } = {};
  const fromOther: Started = {};
  const { queue } = openLitejobs(target, {}, (p) => (cross ? fromOther.resolve?.(p, 0) : inProcess.resolve?.(performance.now())));
  try {
    await queue.start();
    await queue.stats(); // connected and migrated before the first sample
    await sleep(50); // the change listener is up
    if (cross) return await fromChild(['litejobs-pg', url, target.schema], samples, fromOther);
    return await samplesInProcess(samples, inProcess, (i) => queue.enqueue(JOB, { i }), `${LJ_PG_IN} sample`);
  } finally {
    try {
      await queue.close();
    } finally {
      await dropSchema(url, target.schema);
    }
  }
}

async function graphile(url: string, samples: number, cross: boolean): Promise<number[]> {
  const { schema, utils, close } = await openGraphile(url);
  const inProcess: { resolve?: (at: number) => void } = {};
  const fromOther: Started = {};
  try {
    // Its defaults (concurrency 1, no local queue): batching trades latency for throughput.
    const runner = await startGraphile(url, schema, 'defaults', 1, (p) => (cross ? fromOther.resolve?.(p, 0) : inProcess.resolve?.(performance.now())));
    try {
      await sleep(50);
      if (cross) return await fromChild(['graphile', url, schema], samples, fromOther);
      return await samplesInProcess(samples, inProcess, (i) => utils.addJob(JOB, { i }), `${GW_IN} sample`);
    } finally {
      await runner.stop();
    }
  } finally {
    await close();
  }
}

export interface PgLatency {
  contenders: Contender[];
  pairs: Array<[string, string]>;
  config: Record<string, string>;
  checks(rows: readonly RowResult[]): Check[];
}

export function pgLatency(url: string, samples: { in: number; x: number }): PgLatency {
  return {
    contenders: [
      { label: LJ_PG_IN, system: 'litejobs', run: async () => pcts(await litejobsPg(url, samples.in, false)) },
      { label: GW_IN, system: 'graphile-worker', run: async () => pcts(await graphile(url, samples.in, false)) },
      { label: LJ_PG_X, system: 'litejobs', run: async () => pcts(await litejobsPg(url, samples.x, true)) },
      { label: GW_X, system: 'graphile-worker', run: async () => pcts(await graphile(url, samples.x, true)) },
    ],
    pairs: [
      [LJ_PG_IN, GW_IN],
      [LJ_PG_X, GW_X],
    ],
    config: {
      [LJ_PG_IN]: `createQueue({ connection, schema }) defaults (concurrency 4); the enqueue wakes this process's claim loop directly; ${samples.in} samples`,
      [LJ_PG_X]: `the same worker; a child process enqueues on the same schema, and its commit's NOTIFY wakes the worker's LISTEN connection; ${samples.x} samples`,
      'graphile-worker': `run() at its defaults (concurrency 1, no local queue); addJob in process, or from a child process through WorkerUtils; woken by its own LISTEN/NOTIFY; ${samples.in} / ${samples.x} samples`,
    },
    checks(rows) {
      const x = medianOf(rows, LJ_PG_X, 'p50');
      const ratio = x / medianOf(rows, GW_X, 'p50');
      return [
        valueCheck(x, (v) => v <= 5, `${fmt(x)} ms`, 'PostgreSQL latency cross-process p50 ≤ 5 ms (LISTEN/NOTIFY)'),
        valueCheck(ratio, (r) => r <= 1, `${fmt(ratio)}×`, 'PostgreSQL latency cross-process p50 ≤ graphile-worker cross-process'),
      ];
    },
  };
}
