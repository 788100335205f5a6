/**
 * Worker pools of one process (`createQueue({ pools })`): job names grouped,
 * each group with its own worker slots, so that one kind of job cannot take
 * every worker from another — BullMQ's `new Worker('emails', fn, {
 * concurrency: 20 })` beside `new Worker('reports', fn, { concurrency: 1
 * })`. Each pool claims its own names only, with its own slots and prefetch;
 * the names no pool lists run in the queue's own `concurrency` (the pool
 * named `default`). Each registers as a worker process of its own (its lease
 * owner id ends in `/<pool>`), so the page's Workers, `litejobs stats` and
 * the metrics show a pool's names and slots together.
 */
import { ValidationError } from '../../errors.js';
import { checkInteger, rejectUnknownOptions } from '../../lib/validate.js';

/** One pool: its job names (defined with handlers), and how many of them run at once in this process. */
export interface PoolOptions {
  jobs: readonly string[];
  concurrency: number;
  /** As the queue's `prefetch`, for this pool's claims. Default: sized as the pool runs. */
  prefetch?: number;
}

export interface ResolvedPool {
  /** `default` for the names no pool lists. */
  name: string;
  names: string[];
  concurrency: number;
  prefetch: number | undefined;
}

export const DEFAULT_POOL = 'default';
const POOL_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The pools a started queue runs: those given, then the default pool of the
 * defined names none of them lists (none when every name is pooled). A name
 * must be defined by the queue, and in one pool only.
 */
export function resolvePools(pools: unknown, defined: readonly string[], queue: { concurrency: number; prefetch: number | undefined }): ResolvedPool[] {
  if (pools === undefined) return [{ name: DEFAULT_POOL, names: [...defined], concurrency: queue.concurrency, prefetch: queue.prefetch }];
  if (typeof pools !== 'object' || pools === null || Array.isArray(pools)) throw new ValidationError('createQueue pools must be an object: { [pool]: { jobs, concurrency, prefetch? } }');
  const out: ResolvedPool[] = [];
  const pooled = new Map<string, string>();
  for (const [name, value] of Object.entries(pools as Record<string, unknown>)) {
    const what = `createQueue pools.${name.slice(0, 64)}`;
    // Not a worker id of the default pool (`<owner>/w<n>`) nor take()'s (`<owner>/manual`): history names runs by them.
    if (name === 'manual' || /^w\d+$/.test(name)) throw new ValidationError(`createQueue pools: "${name}" names this process's own workers (w<n>, manual): choose another pool name`);
    if (!POOL_NAME.test(name) || name === DEFAULT_POOL) throw new ValidationError(`createQueue pools: a pool is named by 1 to 64 letters, digits, ".", "_" or "-", and not "${DEFAULT_POOL}" (the names no pool lists), got ${JSON.stringify(name.slice(0, 100))}`);
    if (typeof value !== 'object' || value === null) throw new ValidationError(`${what} must be { jobs, concurrency, prefetch? }`);
    rejectUnknownOptions(what, value, ['jobs', 'concurrency', 'prefetch']);
    const p = value as Partial<PoolOptions>;
    if (!Array.isArray(p.jobs) || p.jobs.length === 0) throw new ValidationError(`${what}.jobs must name the job names it runs`);
    for (const job of p.jobs) {
      if (typeof job !== 'string' || !defined.includes(job)) throw new ValidationError(`${what}.jobs: "${String(job).slice(0, 200)}" is not a job this queue defines (defineJob with a handler)`);
      const other = pooled.get(job);
      if (other !== undefined) throw new ValidationError(`${what}.jobs: "${job}" is in pool "${other}" already (a job name runs in one pool)`);
      pooled.set(job, name);
    }
    const concurrency = checkInteger(`${what}.concurrency`, p.concurrency, 1, 10_000);
    const prefetch = p.prefetch === undefined ? undefined : checkInteger(`${what}.prefetch`, p.prefetch, 0, 100_000);
    out.push({ name, names: [...p.jobs], concurrency, prefetch });
  }
  const rest = defined.filter((n) => !pooled.has(n));
  if (rest.length > 0) out.unshift({ name: DEFAULT_POOL, names: rest, concurrency: queue.concurrency, prefetch: queue.prefetch });
  return out;
}

/** A pool's lease owner id: the process's own for the default pool, with `/<pool>` for the others. */
export const poolOwner = (ownerId: string, pool: string): string => (pool === DEFAULT_POOL ? ownerId : `${ownerId}/${pool}`);
