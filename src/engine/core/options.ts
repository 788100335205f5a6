/** createQueue() and enqueue() options: their types, defaults and checks. */
import type { PoolOptions } from './pools.js';
import { availableParallelism } from 'node:os';
import type { RetryPolicy } from '../../../machines/policy.js';
import type { Clock } from '../../lib/clock.js';
import type { AnyJob } from './job-definition.js';
import { NotSupportedError, ValidationError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import { checkInteger, checkKey, checkNumber, checkPath, checkRetryPolicy, checkString, rejectUnknownOptions } from '../../lib/validate.js';
import type { CallerClient, Store, UniqueGuard } from '../../store/store.js';
import { resolveTelemetry, type TelemetryOptions } from '../../telemetry/telemetry-options.js';
import { checkAppDatabase, type SqliteDatabase } from '../../store/open-store.js';
import { splitSchemaParam } from '../../store/connection-url.js';
import { checkGroup } from './limits.js';
import { checkUniqueOptions, type DebounceOptions, type ThrottleOptions, type UniqueOptions } from './unique.js';
import { MAX_DATE_MS, type Duration } from '../../lib/duration.js';
import { parseAge, resolveRetention, type JobRetention, type ResolvedRetention } from './retention.js';
import { lifoRunAt } from './lifo.js';

export interface QueueOptions {
  /** The SQLite file (created if missing). Required unless `connection`, `database` or `store` is given. */
  path?: string;
  /**
   * SQLite only: the application's own better-sqlite3 `Database`, opened on
   * a file (the queue's file, or the file to put the queue's tables in).
   * `enqueueSync` and `enqueueManySync` write with it, so a job enqueued
   * inside the application's `db.transaction(...)` commits or rolls back with
   * it. The queue still opens its own connections for everything else and
   * never closes this one. `path` may be left out (it is the database's
   * file); given, it must name the same file. See docs/guides/transactional-enqueue.md.
   */
  database?: SqliteDatabase;
  /**
   * A PostgreSQL database instead of a SQLite file (`postgres://user@host:5432/db`):
   * the same queue, for processes on several hosts. Needs the `pg` package.
   */
  connection?: string;
  /**
   * With `connection`: the schema that holds litejobs' tables (created if
   * missing). The URL's `?schema=` says the same (as the CLI's `--db` reads
   * it); naming two different schemas is refused. Default `'litejobs'`.
   */
  schema?: string;
  /** A name for logs (`queue` field). Default `'default'`. */
  name?: string;
  /** Worker actors, i.e. jobs run at once by this process. Default 4. */
  concurrency?: number;
  /**
   * Jobs claimed ahead of idle workers, under the same lease, so that claims
   * come in batches. Default: sized as the queue runs, four claims' time of
   * work (20–100 ms) between four times `concurrency` and 1,024:
   * large for many short jobs, small for long ones. A number fixes it. Use 0
   * for long jobs shared across processes, so no process holds jobs it has
   * not started.
   */
  prefetch?: number;
  /**
   * Worker pools of this process (pools.ts): job names with worker slots of
   * their own, e.g. `{ emails: { jobs: ['send-email'], concurrency: 20 },
   * reports: { jobs: ['report'], concurrency: 1 } }`. The names no pool lists
   * run in `concurrency` (the pool `default`).
   */
  pools?: Record<string, PoolOptions>;
  /**
   * How long finished jobs are kept (with their history), per state: ms or a
   * string such as '1d'. `0` deletes a job in the same transaction that
   * finishes it. Absent: kept until deleted.
   */
  retention?: RetentionOptions;
  /** Lease length, ms: a job held longer without renewal is taken as crashed. Default 30 000. */
  lease?: number;
  /** `'normal'` (default): fast, a power loss may undo the last commits; `'full'`: fsync on every commit. */
  durability?: 'normal' | 'full';
  /** A pino logger; `false`: log nothing. Default: pino on stdout at `LITEJOBS_LOG_LEVEL` or 'info'. */
  logger?: Logger | false;
  /**
   * The jobs this process runs (`defineJob`) and those it only enqueues
   * (`declareJob`). Typed jobs make a typed queue: `enqueue` then refuses
   * names not listed and payloads of the wrong type at compile time.
   */
  jobs?: readonly AnyJob[];
  /** Record every transition in the history table. Default true. */
  history?: boolean;
  /** Largest payload accepted, bytes of JSON. Default 1 MiB. */
  maxPayloadBytes?: number;
  /** How often to look for jobs committed by other processes, ms. Default 5. */
  pollInterval?: number;
  /** SQLite page cache, MiB. Default 64. */
  cacheSize?: number;
  /** How long a write waits for another process's lock, ms. Default 5000. */
  busyTimeout?: number;
  /** Time and timers for everything the queue waits on (a virtual clock in tests: `createVirtualClock`). Default: the system clock. */
  clock?: Clock;
  /** The store to use instead of opening `path` (a store of one's own that passes the store conformance tests). */
  store?: Store;
  /**
   * How long a handler may go on after it was told to stop (timeout, cancel,
   * shutdown, lost lease) before it is reported as stuck, ms. Its run keeps
   * its slot and lease until it returns either way. Default 5000.
   */
  stuckAfter?: number;
  /**
   * Worker threads for jobs defined with `isolation: 'thread'`: at most this
   * many such jobs run at once. Default: `concurrency`, at most the number of
   * cores. Threads start on first use.
   */
  threads?: number;
  /**
   * OpenTelemetry (with `@opentelemetry/api` installed and an SDK started;
   * see the tracing guide): `traces`, a span for each enqueue and attempt;
   * `metrics`, the instruments `/metrics` shows, through the registered
   * meter provider. `true` (default) follows whatever SDK is registered;
   * `false` never touches OpenTelemetry.
   */
  telemetry?: boolean | TelemetryOptions;
}

/** `createQueue({ retention })`: each finished state's rule for every job name (a name's own `defineJob` retention replaces it). */
export interface RetentionOptions extends JobRetention {
  /**
   * How long the outcome of a job deleted by the move that finished it (a
   * state kept for `0`) stays readable: `result()` in any process and the
   * change feed (`watch()`, the page) still learn how it ended. Default '1m';
   * at least '1s'.
   */
  outcome?: Duration;
}

/** How long a job deleted as it finished leaves its outcome behind, unless `retention.outcome` says otherwise. */
export const KEPT_OUTCOME_MS = 60_000;


const QUEUE_KEYS = [
  'path', 'name', 'concurrency', 'prefetch', 'retention', 'lease', 'durability', 'logger', 'jobs', 'history', 'maxPayloadBytes',
  'pollInterval', 'cacheSize', 'busyTimeout', 'clock', 'store', 'stuckAfter', 'threads', 'connection', 'schema', 'database', 'telemetry', 'pools',
] as const;

export type ResolvedQueueOptions = Required<Omit<QueueOptions, 'path' | 'logger' | 'clock' | 'store' | 'retention' | 'connection' | 'schema' | 'database' | 'prefetch' | 'telemetry' | 'pools'>> &
  Pick<QueueOptions, 'path' | 'logger' | 'clock' | 'store' | 'connection' | 'schema' | 'database' | 'prefetch' | 'pools'> & { retention: ResolvedRetention; keptOutcome: number; telemetry: Required<TelemetryOptions> };

export function resolveQueueOptions(options: QueueOptions): ResolvedQueueOptions {
  rejectUnknownOptions('createQueue', options, QUEUE_KEYS);
  const concurrency = options.concurrency ?? 4;
  const o: ResolvedQueueOptions = {
    name: 'default',
    concurrency,
    lease: 30_000,
    durability: 'normal',
    jobs: [],
    history: true,
    maxPayloadBytes: 1024 * 1024,
    pollInterval: 5,
    cacheSize: 64,
    busyTimeout: 5000,
    stuckAfter: 5000,
    threads: Math.min(concurrency, availableParallelism()),
    ...options,
    retention: resolveRetention('createQueue retention', options.retention, ['outcome']),
    keptOutcome: resolveKeptOutcome(options.retention?.outcome),
    telemetry: resolveTelemetry(options.telemetry),
  };
  if (o.database !== undefined) {
    if (o.connection !== undefined) {
      throw new NotSupportedError('createQueue database (an application\'s SQLite connection) cannot serve a PostgreSQL queue: enqueue inside your transaction with enqueue(name, payload, { client })');
    }
    if (o.store !== undefined) throw new ValidationError('createQueue takes a database (with its path) or a store, not both');
    o.path = checkAppDatabase(o.database, o.path);
  }
  if (o.connection !== undefined) {
    if (o.path !== undefined || o.store !== undefined) throw new ValidationError('createQueue takes a connection (PostgreSQL) or a path (SQLite) or a store, not two');
    if (typeof o.connection !== 'string' || !/^postgres(ql)?:\/\//i.test(o.connection)) {
      throw new ValidationError('createQueue connection must be a postgres:// URL');
    }
    // `?schema=` on the URL names the schema, as the CLI's --db reads it (store/connection-url.ts).
    const target = splitSchemaParam(o.connection);
    if (target === null) throw new ValidationError('createQueue connection is not a valid postgres:// URL');
    if (target.schema !== undefined) {
      if (o.schema !== undefined && o.schema !== target.schema) {
        throw new ValidationError(`createQueue names two schemas: "${o.schema}" (schema) and "${target.schema}" (the connection URL's ?schema=)`);
      }
      o.connection = target.connection;
      o.schema = target.schema;
    }
    if (o.schema !== undefined) checkString('createQueue schema', o.schema, 63);
  } else {
    if (o.schema !== undefined) throw new ValidationError('createQueue schema needs a connection (PostgreSQL)');
    if (o.store === undefined) checkPath('createQueue path', o.path);
  }
  if (o.store !== undefined && (typeof o.store !== 'object' || o.store === null || typeof o.store.claim !== 'function')) {
    throw new ValidationError('createQueue store must be a Store');
  }
  checkString('createQueue name', o.name, 200);
  checkInteger('createQueue concurrency', o.concurrency, 1, 10_000);
  // Absent: sized as the queue runs (prefetch-size.ts).
  if (o.prefetch !== undefined) checkInteger('createQueue prefetch', o.prefetch, 0, 100_000);
  checkInteger('createQueue lease', o.lease, 100);
  if (o.durability !== 'normal' && o.durability !== 'full') throw new ValidationError('createQueue durability must be "normal" or "full"');
  if (o.logger !== undefined && o.logger !== false && (typeof o.logger !== 'object' || o.logger === null || typeof (o.logger as { child?: unknown }).child !== 'function')) {
    throw new ValidationError('createQueue logger must be a pino Logger, or false to log nothing');
  }
  if (!Array.isArray(o.jobs)) throw new ValidationError('createQueue jobs must be an array of defineJob(...) results');
  // Checked before anything is opened: defined and declared jobs share one namespace of names.
  const seen = new Set<string>();
  for (const job of o.jobs) {
    if (seen.has(job?.name)) throw new ValidationError(`job "${job.name}" is defined twice`);
    seen.add(job?.name);
  }
  if (typeof o.history !== 'boolean') throw new ValidationError('createQueue history must be a boolean');
  checkInteger('createQueue maxPayloadBytes', o.maxPayloadBytes, 2, 1024 * 1024 * 1024);
  checkInteger('createQueue pollInterval', o.pollInterval, 1, 60_000);
  checkNumber('createQueue cacheSize', o.cacheSize, 1, 1024 * 1024);
  checkInteger('createQueue busyTimeout', o.busyTimeout, 0);
  checkInteger('createQueue stuckAfter', o.stuckAfter, 0);
  checkInteger('createQueue threads', o.threads, 1, 1024);
  return o;
}

/** At least a second: a waiter in another process reads again within one (its safety tick). */
function resolveKeptOutcome(value: Duration | undefined): number {
  if (value === undefined) return KEPT_OUTCOME_MS;
  const ms = parseAge('createQueue retention.outcome', value);
  if (ms < 1000) throw new ValidationError(`createQueue retention.outcome must be at least '1s', so that every result() waiting in another process reads it (got ${JSON.stringify(value)})`);
  return ms;
}


export interface EnqueueOptions {
  /** Idempotency key: a second enqueue with the same key returns the first job (`created: false`). */
  key?: string;
  /**
   * Unique while the job is in some states: another enqueue with the same
   * key meanwhile returns this job (`created: false`). Afterwards the key is
   * free again. See docs/guides/unique-jobs.md.
   */
  unique?: UniqueOptions;
  /**
   * Runs the job `ms` after the last enqueue with this key: an enqueue while
   * the job is still pending (not yet claimed) replaces its payload and
   * moves its run time to now + ms, and returns it (`created: false`).
   */
  debounce?: DebounceOptions;
  /** Keeps the first job with this key and drops every enqueue within `ms` of it (returning the first, `created: false`). */
  throttle?: ThrottleOptions;
  /**
   * Concurrency group (e.g. `customer:42`): at most the job definition's
   * `groupConcurrency` (or the group's own, `queue.setGroupConcurrency`) jobs
   * of one group run at once across every process, and groups take turns at
   * each claim. See docs/guides/groups-and-rate-limits.md.
   */
  group?: string;
  /** Run no sooner than this many ms from now. */
  delay?: number;
  /** Run no sooner than this time. */
  runAt?: Date | number;
  /** Higher runs first. Default 0. */
  priority?: number;
  /**
   * Last in, first out: claimed before every job already waiting at its
   * priority (BullMQ's `lifo: true`); of several such jobs, the newest first.
   * Not with `delay`, `runAt` or `debounce` (each sets the run time).
   */
  lifo?: boolean;
  /** Overrides the job definition's retry policy for this job (plain data only). */
  retry?: RetryPolicy;
  /** Handler timeout for this job, ms. */
  timeout?: number;
  /**
   * PostgreSQL only: the caller's own `pg` client (Client or PoolClient),
   * inside its BEGIN … COMMIT. The job is written through it, so it commits or
   * rolls back with the caller's own writes; workers hear of it at the commit.
   */
  client?: CallerClient;
}

/** The options of each item of `enqueueMany`: a batch shares one client (`enqueueMany(items, { client })`). */
export type EnqueueItemOptions = Omit<EnqueueOptions, 'client'>;

export interface EnqueueManyOptions {
  /** PostgreSQL only: the caller's own `pg` client inside its transaction, as for `enqueue`. */
  client?: CallerClient;
}


const ENQUEUE_KEYS = ['key', 'unique', 'debounce', 'throttle', 'group', 'delay', 'runAt', 'priority', 'lifo', 'retry', 'timeout'] as const;


export interface CheckedEnqueue {
  key: string | null;
  runAt: number;
  priority: number;
  retry: string | null;
  timeout: number | null;
  unique: UniqueGuard | null;
  group: string | null;
}

/**
 * When a job runs: at `runAt` (a Date or ms since the epoch) or `delay` ms
 * from `now`, undefined when neither is given. The one rule for every path
 * that sets a job's run time (`enqueue` and `update`, and the HTTP API and
 * the CLI through them): bounded by the last instant a Date can hold, so the
 * job always reads back as a real date (a run time of 1e300 once stored broke
 * every listing that included it).
 */
export function checkRunTime(what: string, runAt: unknown, delay: unknown, now: number): number | undefined {
  if (delay !== undefined && runAt !== undefined) throw new ValidationError(`${what}: give delay or runAt, not both`);
  if (delay !== undefined) return Math.round(now + checkNumber(`${what} delay`, delay, 0, MAX_DATE_MS - now));
  if (runAt === undefined) return undefined;
  const t = runAt instanceof Date ? runAt.getTime() : runAt;
  return Math.round(checkNumber(`${what} runAt`, t, 0, MAX_DATE_MS));
}

export function checkEnqueueOptions(options: EnqueueOptions | undefined, now: number): CheckedEnqueue {
  if (options === undefined) return { key: null, runAt: now, priority: 0, retry: null, timeout: null, unique: null, group: null };
  rejectUnknownOptions('enqueue options', options, ENQUEUE_KEYS);
  let runAt = checkRunTime('enqueue', options.runAt, options.delay, now) ?? now;
  const guarded = checkUniqueOptions(options, now);
  if (guarded?.runAt !== undefined) runAt = guarded.runAt;
  if (options.lifo !== undefined && typeof options.lifo !== 'boolean') throw new ValidationError('enqueue lifo must be a boolean');
  if (options.lifo === true) {
    if (options.delay !== undefined || options.runAt !== undefined || options.debounce !== undefined) throw new ValidationError('enqueue: lifo takes no delay, runAt or debounce (each sets when the job runs)');
    runAt = lifoRunAt(now);
  }
  return {
    key: options.key === undefined ? null : checkKey('enqueue key', options.key, 1024),
    runAt: Math.round(runAt),
    priority: options.priority === undefined ? 0 : checkInteger('enqueue priority', options.priority, -1_000_000, 1_000_000),
    retry: options.retry === undefined ? null : JSON.stringify(checkRetryPolicy('enqueue retry', options.retry, true)),
    timeout: options.timeout === undefined ? null : checkInteger('enqueue timeout', options.timeout, 1),
    unique: guarded?.guard ?? null,
    group: options.group === undefined ? null : checkGroup('enqueue group', options.group),
  };
}
