/**
 * One poller per queue, shared by every subscriber: reads what changed in the
 * store after its cursor (every process's commits: the file is the only
 * channel between them), hands each read to the stages that keep state (live
 * counts, series, workers), and sends subscribers a Tick per interval that
 * saw changes. A pause writes no history row: the paused names each read
 * brings are compared, so that a pause from any process sends a tick too.
 * It starts with the first subscriber and stops with the last.
 *
 * Cursors are `"<jobId>.<historyId>"`: a subscriber that comes back with one
 * first gets every change after it, aggregated (nothing lost, nothing twice),
 * or a reset when it is unknown or too far behind.
 */
import type { Clock, TimerHandle } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { pausedView, type PausedView } from '../store/paused.js';
import type { ChangeBatch, ChangeCursor, ChangeOptions, RecentChange, Store } from '../store/store.js';
import { eventName } from '../../machines/event-name.js';
import { storedJson } from '../lib/stored-json.js';
import { PUBLISH_EVENT } from '../store/contract/run-data.js';

export interface TickTransition {
  from: string | null;
  to: string;
  event: string;
  /** Which guarded candidate with this event and target, when not the first: the graph's edge `from:event:to#<candidate>`. */
  candidate?: number;
  name: string | null;
  count: number;
}

/** A recent change as a tick carries it: a progress update (event `job.progress`) with its value, a published value (`job.publish`) with its key and value, when small. */
export type TickChange = Omit<RecentChange, 'data'> & { progress?: unknown; published?: { key: string; value?: unknown } };

/**
 * A progress value longer than this (JSON text) is left out of a tick: a tick goes to every page at most
 * four times a second, and fifty 8 KB values would make each 400 KB. The job's own read has it whole.
 */
export const TICK_PROGRESS_CHARS = 1024;

/** A recent change with its progress value read (the row's JSON text, when small), and its event named as the history shows it. */
function tickChange({ data, ...r }: RecentChange): TickChange {
  const change: TickChange = { ...r, event: eventName(r.event, r.from) };
  if (data == null) return change;
  if (r.event === PUBLISH_EVENT) {
    // The key always (the page names what changed); the value when small.
    const published = storedJson(data) as { key: string; value: unknown };
    change.published = data.length <= TICK_PROGRESS_CHARS ? published : { key: published.key };
  } else if (data.length <= TICK_PROGRESS_CHARS) change.progress = storedJson(data);
  return change;
}

/** What a subscriber receives per tick (the dashboard contract's Tick). */
export interface Tick {
  at: number;
  counts: Record<string, number>;
  names: Record<string, Record<string, number>>;
  enqueued: number;
  transitions: TickTransition[];
  /** The newest changes (at most 50), progress updates among them. */
  recent: TickChange[];
  /** What is paused as of the tick's read (every process's pauses). */
  paused: PausedView;
  /** The counts are partial: the first exact count is still being taken. */
  seeding?: true;
}

export type FeedMessage = { event: 'tick'; id: string; data: Tick } | { event: 'reset'; data: Record<string, never> };

/** Keeps state from the feed's reads; each read's changes reach every stage once, in order. */
export interface FeedStage {
  /** Extra work for the next read (in its transaction), which starts after `after`. */
  readOptions?(after: ChangeCursor): ChangeOptions;
  apply(batch: ChangeBatch): void;
  /** The feed restarts from `cursor` (first subscriber): forget what came before. */
  start?(cursor: ChangeCursor): void;
  /** More reads are wanted at once (a count being seeded). */
  busy?(): boolean;
}

export interface ChangeFeedOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  stages: readonly FeedStage[];
  /** The queue's own job names: listed first among paused names (pausedView). */
  own?: ReadonlySet<string>;
  /** The counts each tick carries. */
  counts(): { total: number; states: Record<string, number>; names: Record<string, Record<string, number>>; seeding?: true };
  intervalMs?: number;
  /** Rows per read; a longer backlog is read in several, yielding between them. */
  chunkRows?: number;
  /** A cursor further behind than this many rows gets a reset. */
  maxReplayRows?: number;
}

export interface ChangeFeed {
  /** Sends `send` a first tick (after `lastEventId`: every change since; else none), then every tick. */
  subscribe(send: (message: FeedMessage) => void, lastEventId?: string): Promise<() => void>;
  running(): boolean;
  close(): Promise<void>;
}

export const formatCursor = (c: ChangeCursor): string => `${c.jobId}.${c.historyId}`;

export function parseCursor(text: string): ChangeCursor | null {
  const m = /^(\d{1,15})\.(\d{1,15})$/.exec(text.trim());
  return m ? { jobId: Number(m[1]), historyId: Number(m[2]) } : null;
}

/** Changes gathered across reads until they are sent. */
class Aggregate {
  readonly transitions = new Map<string, TickTransition>();
  enqueued = 0;
  recent: TickChange[] = [];
  add(batch: ChangeBatch): void {
    for (const e of batch.enqueued) this.enqueued += e.count;
    for (const t of batch.transitions) {
      const key = `${t.from}\u0000${t.to}\u0000${t.event}\u0000${t.candidate}\u0000${t.name}`;
      const seen = this.transitions.get(key);
      if (seen) seen.count += t.count;
      else {
        // As the history shows it: the page finds the edge by it (machineGraph's edge ids name events so).
        const group: TickTransition = { from: t.from, to: t.to, event: eventName(t.event, t.from), name: t.name, count: t.count };
        if (t.candidate !== null) group.candidate = t.candidate;
        this.transitions.set(key, group);
      }
    }
    if (batch.recent.length > 0) this.recent = [...this.recent, ...batch.recent.map(tickChange)].slice(-50);
  }
  empty(): boolean {
    // A progress update is a recent change without a transition: it is sent too (the page's open job follows it).
    return this.enqueued === 0 && this.transitions.size === 0 && this.recent.length === 0;
  }
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createChangeFeed(o: ChangeFeedOptions): ChangeFeed {
  const intervalMs = o.intervalMs ?? 250;
  const chunkRows = o.chunkRows ?? 50_000;
  const maxReplayRows = o.maxReplayRows ?? 200_000;
  const read = o.store.changes?.bind(o.store);
  if (!read) throw new TypeError('the dashboard needs a store that reads its changes (store.changes)');
  const subscribers = new Set<(message: FeedMessage) => void>();
  /** Where the next read starts; null while stopped. */
  let cursor: ChangeCursor | null = null;
  /** The end of the last tick sent: the changes after it are in `pending`. */
  let sent: ChangeCursor | null = null;
  let pending = new Aggregate();
  let lastTick = 0;
  let lastCounts = '';
  /** As of the newest read that brought it; compared as text, like the counts. */
  let paused: PausedView = { all: false, names: [] };
  let lastPaused = '';
  let timer: TimerHandle | undefined;
  let polling = false;
  let closed = false;
  /** Reads, replays and starts run one at a time, in order. */
  let chain: Promise<void> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task);
    chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };

  const tickOf = (agg: Aggregate): Tick => {
    const c = o.counts();
    const tick: Tick = { at: o.clock.now(), counts: c.states, names: c.names, enqueued: agg.enqueued, transitions: [...agg.transitions.values()], recent: agg.recent, paused };
    if (c.seeding) tick.seeding = true;
    return tick;
  };

  const readOnce = async (): Promise<ChangeBatch> => {
    const options: ChangeOptions = {};
    for (const stage of o.stages) Object.assign(options, stage.readOptions?.(cursor!));
    const batch = await read(cursor, chunkRows, options);
    cursor = batch.cursor;
    if (batch.paused) paused = pausedView(batch.paused, o.own);
    for (const stage of o.stages) stage.apply(batch);
    return batch;
  };

  const poll = async (): Promise<void> => {
    if (cursor === null) return; // stopped meanwhile
    for (;;) {
      const batch = await readOnce();
      pending.add(batch);
      if (!batch.more || closed || cursor === null) break;
      await yieldToLoop();
    }
    const now = o.clock.now();
    if (now - lastTick < intervalMs) return; // sooner than a tick may go: kept for the next
    const counts = JSON.stringify(o.counts());
    const pausedText = JSON.stringify(paused);
    if (pending.empty() && counts === lastCounts && pausedText === lastPaused) return;
    lastCounts = counts;
    lastPaused = pausedText;
    lastTick = now;
    sent = cursor;
    const message: FeedMessage = { event: 'tick', id: formatCursor(cursor!), data: tickOf(pending) };
    pending = new Aggregate();
    for (const send of subscribers) send(message);
  };

  /** Arms the next read, unless one is armed or running. */
  const arm = () => {
    if (closed || subscribers.size === 0 || timer !== undefined || polling) return;
    const soon = o.stages.some((s) => s.busy?.());
    timer = o.clock.setTimeout(() => {
      timer = undefined;
      polling = true;
      void serial(poll)
        .catch((err: unknown) => o.logger.warn({ err }, 'dashboard: reading the changes failed'))
        .finally(() => {
          polling = false;
          arm();
        });
    }, soon ? 0 : intervalMs);
    (timer as { unref?: () => void }).unref?.();
  };

  const start = async () => {
    const batch = await read(null, 0);
    const head = batch.cursor;
    cursor = head;
    sent = head;
    pending = new Aggregate();
    lastCounts = '';
    paused = pausedView(batch.paused ?? [], o.own);
    lastPaused = JSON.stringify(paused);
    for (const stage of o.stages) stage.start?.(head);
  };

  const stop = () => {
    if (timer !== undefined) o.clock.clearTimeout(timer);
    timer = undefined;
    cursor = null;
    sent = null;
  };

  /** Every change in (from, sent], aggregated; null when it cannot be told. */
  const replay = async (from: ChangeCursor): Promise<Aggregate | null> => {
    const upTo = sent!;
    if (from.jobId > upTo.jobId || from.historyId > upTo.historyId) return null;
    // The id ranges bound the rows in them: no need to count them first.
    if (upTo.jobId - from.jobId + (upTo.historyId - from.historyId) > maxReplayRows) return null;
    const agg = new Aggregate();
    for (let at = from; ; ) {
      const batch = await read(at, chunkRows, { upTo, latencySamples: 0 });
      agg.add(batch);
      at = batch.cursor;
      if (!batch.more) return agg;
      await yieldToLoop();
    }
  };

  return {
    subscribe(send, lastEventId) {
      return serial(async () => {
        if (closed) throw new Error('the change feed is closed');
        if (cursor === null) await start();
        let agg = new Aggregate();
        if (lastEventId !== undefined) {
          const from = parseCursor(lastEventId);
          const since = from && (await replay(from));
          if (!since) send({ event: 'reset', data: {} });
          else agg = since;
        }
        send({ event: 'tick', id: formatCursor(sent!), data: tickOf(agg) });
        subscribers.add(send);
        arm();
        return () => {
          if (!subscribers.delete(send) || subscribers.size > 0) return;
          // After any read under way: it must not move the cursor of a stopped feed.
          void serial(async () => {
            if (subscribers.size === 0) stop();
          });
        };
      });
    },
    running: () => cursor !== null,
    async close() {
      closed = true;
      subscribers.clear();
      stop();
      await chain;
    },
  };
}
