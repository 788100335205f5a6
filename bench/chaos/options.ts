/**
 * The chaos check's flags, the settings its child processes share, and the
 * seeded random numbers that make a failing run repeatable as closely as
 * timing allows (the seed picks every victim, every interval and every
 * handler's work time).
 */
import { randomInt } from 'node:crypto';
import { isPostgres } from '../../src/cli/open-queue.js';

/** The job name every process uses: workers run it, the producer enqueues it. */
export const JOB_NAME = 'chaos';
/**
 * Jobs whose handler always fails, retried with a fixed backoff, then dead:
 * the verdict holds them to exactly FAIL_ATTEMPTS claims, each retry no
 * earlier than FAIL_BACKOFF_MS after the failure before it, kills or not.
 */
export const FAIL_JOB_NAME = 'chaos-fail';
export const FAIL_ATTEMPTS = 3;
export const FAIL_BACKOFF_MS = 300;
/** The chaos jobs' own backoff (a kill costs each job it held an attempt, and they have 1000). */
export const JOB_BACKOFF_MS = 20;
/** One job in this many is a failing one. */
export const FAIL_EVERY = 10;
/** Short, so that a killed worker's jobs come back quickly; long enough that a busy event loop still renews in time. */
export const LEASE_MS = 1500;
/** Concurrent handlers per worker process. */
export const CONCURRENCY = 4;
/** Chance, per kill, that the producer is killed (and replaced) as well. */
export const PRODUCER_KILL_CHANCE = 0.1;
/**
 * Jobs of a machine of their own (worker.ts): a caller's `job.requeue` takes
 * a running one back to `pending` with a fresh set of attempts, the edge back
 * to pending that the operator process sends. One job in CUSTOM_EVERY is one:
 * their handlers run 100–400 ms, and more of them would fill every worker.
 */
export const CUSTOM_JOB_NAME = 'chaos-custom';
export const CUSTOM_EVERY = 100;
/** How often the operator process acts on a job, ms. */
export const OPERATOR_EVERY_MS = 25;
/** Chance, per kill, that the watcher is killed (and resumes from its last cursor) as well. */
export const WATCHER_KILL_CHANCE = 0.3;

export interface ChaosOptions {
  kills: number;
  /** Worker processes at any time. Default 3 on SQLite, 4 on PostgreSQL. */
  workers: number;
  seed: number;
  /** A SQLite file that must not exist yet, or a postgres:// URL (a fresh schema: `?schema=` or a made-up one); null: a temp file. */
  db: string | null;
  quiet: boolean;
  /** Random pause before each kill, ms: [min, max]. */
  intervalMs: [number, number];
  /**
   * Jobs the producer enqueues per second. The default keeps the workers busy
   * on a small machine, so that each kill finds jobs running and jobs claimed
   * ahead; far below it most kills hit idle processes and test little.
   */
  rate: number;
  /** How long the workers get to finish every job once the producer stops. */
  drainTimeoutMs: number;
}

export const USAGE =
  'usage: npm run chaos -- [--kills N] [--workers N] [--seed S] [--db PATH | postgres://…] [--quiet]\n' +
  '                        [--interval MIN-MAX (ms)] [--rate JOBS/S] [--drain-timeout S]';

function int(flag: string, value: string | undefined, min: number): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < min) throw new Error(`${flag} needs an integer ≥ ${min}\n${USAGE}`);
  return n;
}

export function parseOptions(argv: readonly string[]): ChaosOptions {
  let workers: number | undefined;
  const o: ChaosOptions = {
    kills: 100,
    workers: 0, // resolved below, from the store
    seed: randomInt(2 ** 31),
    db: null,
    quiet: false,
    intervalMs: [1000, 2500],
    rate: 1000,
    drainTimeoutMs: 60_000,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    switch (flag) {
      case '--kills': o.kills = int(flag, value, 1); i++; break;
      case '--workers': workers = int(flag, value, 1); i++; break;
      case '--seed': o.seed = int(flag, value, 0) >>> 0; i++; break;
      case '--rate': o.rate = int(flag, value, 1); i++; break;
      case '--drain-timeout': o.drainTimeoutMs = int(flag, value, 1) * 1000; i++; break;
      case '--db':
        if (!value) throw new Error(`--db needs a path or a postgres:// URL\n${USAGE}`);
        o.db = value;
        i++;
        break;
      case '--interval': {
        const m = /^(\d+)-(\d+)$/.exec(value ?? '');
        if (!m || Number(m[1]) > Number(m[2]) || Number(m[2]) < 1) throw new Error(`--interval needs MIN-MAX in ms, e.g. 1000-2500\n${USAGE}`);
        o.intervalMs = [Number(m[1]), Number(m[2])];
        i++;
        break;
      }
      case '--quiet': o.quiet = true; break;
      default: throw new Error(`unknown flag ${flag}\n${USAGE}`);
    }
  }
  // On PostgreSQL claims from more processes meet in one server: at least four of them.
  o.workers = workers ?? (o.db !== null && isPostgres(o.db) ? 4 : 3);
  return o;
}

/**
 * The hard limit for a whole run: start-up, every kill at its longest
 * interval (twice, for a slow machine), the drain, and stopping. Past it the
 * run is a FAIL, never a hang.
 */
export function hardTimeoutMs(o: ChaosOptions): number {
  return 20_000 + o.kills * o.intervalMs[1] * 2 + o.drainTimeoutMs + 10_000;
}

export { seededRandom } from '../../src/lib/seeded-random.js';

/** What a worker process is started with (one JSON argument). */
export interface WorkerConfig {
  /** A SQLite file path, or a postgres:// URL with `?schema=` (as the CLI's --db). */
  db: string;
  /** Its handler-run log: one file per process. */
  log: string;
  label: string;
  seed: number;
}

/** What the producer process is started with (one JSON argument). */
/** What the operator process is started with: its log of the actions that took effect. */
export interface OperatorConfig {
  db: string;
  log: string;
  label: string;
  seed: number;
}

/** What a watcher process is started with: the feed log it appends to and resumes from. */
export interface WatcherConfig {
  db: string;
  log: string;
  label: string;
}

export interface ProducerConfig {
  db: string;
  /** Its acknowledged-id file: one file per producer process. */
  acked: string;
  label: string;
  rate: number;
}
