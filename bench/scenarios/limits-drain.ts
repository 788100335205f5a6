/**
 * One round of the limits scenario on one store: a fresh SQLite file or
 * PostgreSQL schema, a backlog (grouped or not) enqueued untimed, then the
 * drain under the job definition's limits, its claims timed.
 */
import { claimMetrics, timeClaims, type ClaimTimes } from '../lib/claim-timer.js';
import { skipLine } from '../lib/peer-list.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import type { RunContext } from '../lib/types.js';
import type { JobLimits, Queue } from '../../src/index.js';
import { dropSchema } from '../peers/graphile.js';
import { enqueueInChunks, JOB, litejobsDrain, openLitejobs, type Target } from '../peers/litejobs.js';
import { freshPgTarget } from '../peers/litejobs-pg.js';

/** A store the scenario's rows run on: each round gets a fresh target, dropped afterwards. */
export interface LimitsBackend {
  /** The start of every row label of this store. */
  label: string;
  fresh(): { target: Target; drop(): Promise<void> };
}

/**
 * The stores to measure: SQLite always; litejobs' PostgreSQL store when its
 * server answers and BENCH_LIMITS_PG=1 (its limited claim is measured on demand
 * until its figures are published).
 */
export function limitsBackends(ctx: RunContext): { backends: LimitsBackend[]; skipped: string[] } {
  const backends: LimitsBackend[] = [
    {
      label: 'litejobs',
      fresh() {
        const path = freshDbPath(ctx.tmpDir, 'lj-limits');
        return { target: path, drop: async () => removeDb(path) };
      },
    },
  ];
  const skipped: string[] = [];
  if (process.env.BENCH_LIMITS_PG === '1') {
    const down = skipLine(ctx, 'litejobs PostgreSQL', 'postgres');
    if (down) skipped.push(down);
    else {
      const url = ctx.servers.postgres.url;
      backends.push({
        label: 'litejobs PostgreSQL',
        fresh() {
          const target = freshPgTarget(url);
          return { target, drop: () => dropSchema(url, target.schema) };
        },
      });
    }
  }
  return { backends, skipped };
}

/** Group `g` of `groups`: zero-padded, so the groups' key order is their enqueue order. */
export const groupName = (g: number, groups: number) => `customer:${String(g).padStart(String(groups - 1).length, '0')}`;

/**
 * `n` jobs spread evenly over `groups` groups, group after group: every job of
 * the first group, then every job of the second, … (enqueueMany of 1000).
 * `interleaved`: job i in group i mod groups instead, as jobs arrive when many
 * customers are busy at once (the groups' jobs lie side by side in the file).
 */
export async function enqueueGrouped(queue: Queue, n: number, groups: number, chunk = 1000, interleaved = false): Promise<void> {
  if (interleaved) {
    for (let start = 0; start < n; start += chunk) {
      const items = Array.from({ length: Math.min(chunk, n - start) }, (_, k) => ({ name: JOB, payload: { i: start + k }, options: { group: groupName((start + k) % groups, groups) } }));
      await queue.enqueueMany(items);
    }
    return;
  }
  const items: Array<{ name: string; payload: { i: number }; options: { group: string } }> = [];
  const flush = async () => {
    if (items.length > 0) await queue.enqueueMany(items.splice(0));
  };
  for (let g = 0, i = 0; g < groups; g++) {
    // The first n % groups groups take one job more.
    const size = Math.floor(n / groups) + (g < n % groups ? 1 : 0);
    for (let k = 0; k < size; k++, i++) {
      items.push({ name: JOB, payload: { i }, options: { group: groupName(g, groups) } });
      if (items.length === chunk) await flush();
    }
  }
  await flush();
}

export interface LimitedDrainOptions {
  /** Spread the backlog over this many groups; none when absent. */
  groups?: number;
  /** Enqueue the groups' jobs interleaved rather than group after group. */
  interleaved?: boolean;
  limits?: JobLimits;
}

export interface LimitedDrainOutcome {
  metrics: { rate: number; claimUs: number; perClaim: number };
  claims: ClaimTimes;
  notes: string[];
}

export async function limitedDrain(backend: LimitsBackend, n: number, o: LimitedDrainOptions, concurrency: number, timeoutMs: number): Promise<LimitedDrainOutcome> {
  const { target, drop } = backend.fresh();
  const notes: string[] = [];
  try {
    const producer = openLitejobs(target, {});
    try {
      if (o.groups === undefined) await enqueueInChunks(producer.queue, n);
      else await enqueueGrouped(producer.queue, n, o.groups, 1000, o.interleaved === true);
    } finally {
      await producer.queue.close();
    }
    let claims!: ClaimTimes;
    const out = await litejobsDrain(target, n, { concurrency, ...(o.limits ? { limits: o.limits } : {}) }, timeoutMs, (queue) => {
      claims = timeClaims(queue);
    });
    try {
      const stats = await out.queue.stats();
      const left = (stats.byState.pending ?? 0) + (stats.byState.processing ?? 0);
      if (left !== 0) notes.push(`${left} jobs still pending/processing after the drain (stats: ${JSON.stringify(stats.byState)})`);
    } finally {
      await out.queue.close();
    }
    return { metrics: { rate: n / (out.ms / 1000), ...claimMetrics(claims) }, claims, notes };
  } finally {
    await drop();
  }
}
