/**
 * `queue.watch()`: every job's changes, made by any process sharing the
 * store, read from the store's own record of them (new jobs and the history
 * table, as the dashboard's change feed reads them), in order, resumable
 * from a cursor. A read follows each hint that something changed (this
 * process's own moves; another connection's commit: SQLite's WAL watch,
 * PostgreSQL's notifications of new work and of finished jobs) and one slow
 * tick, and goes on while a read comes back full. On PostgreSQL another
 * process's claims are not notified: they are read with the next notified
 * change, or by the tick. `events$` stays this process's own.
 *
 * Exact: every committed change once, each job's in order, for a live
 * subscriber and for one resuming from any change's cursor
 * (store/change-feed.ts says why the order holds across processes and
 * clocks). A backlog is read in pages of READ ids of each table. While
 * subscribed, the watch keeps the process alive, on either store.
 */
import { Observable } from 'rxjs';
import { ValidationError } from '../../errors.js';
import type { Clock, TimerHandle } from '../../lib/clock.js';
import type { ChangeCursor, RecentChange, Store } from '../../store/store.js';
import { PROGRESS_EVENT, PUBLISH_EVENT, RUN_VALUE_EVENTS } from '../../store/contract/run-data.js';
import type { QueueEvent } from '../core/events.js';
import { eventName } from '../../../machines/event-name.js';
import { rejectUnknownOptions } from '../../lib/validate.js';
import { storedJson } from '../../lib/stored-json.js';

/** Rows of each kind (new jobs, history rows) read at once. */
const READ = 500;
/** Read this often too, for a hint that was missed. */
const SAFETY_TICK_MS = 1000;
/** Read again this soon when the store holds changes not final yet (PostgreSQL: a transaction still open below committed ids). */
const HELD_RETRY_MS = 20;
/**
 * Hints that come closer than this fold into one read: a busy store hints at
 * every commit (thousands a second), and a read per commit cost a watching
 * process more CPU than a worker. Real time: these wait for other processes'
 * commits, which a virtual clock does not move.
 */
const HINT_GAP_MS = 5;
/** A timer that keeps the process alive while a watch is subscribed (the store's hints and the tick do not). */
const KEEP_ALIVE_MS = 2 ** 30;

/** One change of one job, as `watch()` gives it. */
export interface JobChange {
  /** The job's id. */
  id: number;
  /** Its name (null when the job has been deleted since). */
  name: string | null;
  /** The state it left; `null` for its creation (event `job.enqueue`). */
  from: string | null;
  to: string;
  /** The event, as history shows it (`eventName`): `job.claim`, `after retryDelay`. */
  event: string;
  at: Date;
  /** Pass as `after` to watch again from just after this change. */
  cursor: string;
  /**
   * A progress update (event `job.progress`: from and to are the state the
   * job runs in, and its state did not change): the value `ctx.progress()`
   * was given.
   */
  progress?: unknown;
  /** A published value (event `job.publish`, no move either): its key and the value `ctx.publish()` was given. */
  published?: { key: string; value: unknown };
}

export interface WatchOptions {
  /** Only changes of jobs with these names. */
  names?: readonly string[];
  /** Only changes into these states (moves: progress updates enter no state). */
  states?: readonly string[];
  /** Start after this change (a `cursor` it gave); default: from now on. */
  after?: string;
}

const encode = (c: ChangeCursor) => `${c.jobId}.${c.historyId}`;
function decode(text: unknown): ChangeCursor {
  const m = typeof text === 'string' ? /^(\d{1,16})\.(\d{1,16})$/.exec(text) : null;
  if (!m) throw new ValidationError('watch after: not a cursor that watch() gave');
  return { jobId: Number(m[1]), historyId: Number(m[2]) };
}

function checkList(what: string, value: unknown): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new ValidationError(`watch ${what} must be an array of strings`);
  return new Set(value as string[]);
}

export function createWatch(deps: { store: Store; clock: Clock; events$: Observable<QueueEvent>; open: () => void; holdWrites?: (read: Promise<unknown>) => void }) {
  return (options: WatchOptions = {}): Observable<JobChange> => {
    deps.open();
    rejectUnknownOptions('watch options', options, ['names', 'states', 'after']);
    const names = checkList('names', options.names);
    const states = checkList('states', options.states);
    const start = options.after === undefined ? null : decode(options.after);
    const { store, clock } = deps;
    const changes = store.changes;
    if (!changes) throw new ValidationError('watch needs a store that reads its changes (both of litejobs\' stores do)');
    return new Observable<JobChange>((subscriber) => {
      let cursor: ChangeCursor | null = start;
      let reading = false;
      let again = false;
      let stopped = false;
      let tick: TimerHandle | undefined;
      let soon: NodeJS.Timeout | undefined;
      let lastReadAt = Number.NEGATIVE_INFINITY;
      const keepAlive = setInterval(() => undefined, KEEP_ALIVE_MS);
      const emit = (rows: RecentChange[], from: ChangeCursor) => {
        // Each kind in its own order: the cursor after a change counts what came before it in both.
        let { jobId, historyId } = from;
        for (const r of rows) {
          const seq = Number(r.seq);
          if (r.from === null && r.event === 'job.enqueue') jobId = Math.max(jobId, seq);
          else historyId = Math.max(historyId, seq);
          if (names && (r.name === null || !names.has(r.name))) continue;
          // `states` names states entered: a progress update enters none.
          if (states && (RUN_VALUE_EVENTS.includes(r.event) || !states.has(r.to))) continue;
          const change: JobChange = { id: Number(r.id), name: r.name, from: r.from, to: r.to, event: eventName(r.event, r.from), at: new Date(Number(r.at)), cursor: encode({ jobId, historyId }) };
          if (r.event === PROGRESS_EVENT && r.data != null) change.progress = storedJson(r.data);
          if (r.event === PUBLISH_EVENT && r.data != null) change.published = storedJson(r.data) as { key: string; value: unknown };
          subscriber.next(change);
          if (stopped) return;
        }
      };
      /** Set by the first read's first call to the store: where "now" is found. */
      let firstCall: Promise<unknown> | undefined;
      const read = async () => {
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          do {
            again = false;
            lastReadAt = performance.now();
            const call = changes.call(store, cursor, READ, { feed: true, latencySamples: 0 });
            firstCall ??= call;
            const batch = await call;
            if (stopped) return;
            if (cursor !== null) emit(batch.recent ?? [], cursor);
            cursor = batch.cursor;
            if (batch.more) again = true;
            if (batch.held) later(HELD_RETRY_MS);
          } while (again && !stopped);
        } catch (err) {
          if (!stopped) subscriber.error(err);
        } finally {
          reading = false;
        }
      };
      /** One read `ms` from now, unless one is already due sooner. */
      const later = (ms: number) => {
        if (soon !== undefined || stopped) return;
        soon = setTimeout(() => {
          soon = undefined;
          void read();
        }, ms);
        soon.unref();
      };
      /** A hint that something changed: a read now, or at the end of the gap since the last. */
      const hint = () => {
        const wait = lastReadAt + HINT_GAP_MS - performance.now();
        if (wait <= 0) void read();
        else later(wait);
      };
      const armTick = () => {
        tick = clock.setTimeout(() => {
          void read();
          armTick();
        }, SAFETY_TICK_MS);
        (tick as { unref?: () => void }).unref?.();
      };
      const own = deps.events$.subscribe(hint);
      const unwatchChanges = store.watchChanges?.(hint);
      // PostgreSQL notifies claim loops only of new work; finished jobs come on a notice of their own.
      const unwatchFinished = store.watchFinished?.(hint);
      armTick();
      void read();
      // "Now" is where the first call finds the store: this queue's writes wait for its answer (watch-start.ts).
      if (start === null && firstCall) deps.holdWrites?.(firstCall);
      return () => {
        stopped = true;
        own.unsubscribe();
        unwatchChanges?.();
        unwatchFinished?.();
        if (tick !== undefined) clock.clearTimeout(tick);
        if (soon !== undefined) clearTimeout(soon);
        clearInterval(keepAlive);
      };
    });
  };
}
