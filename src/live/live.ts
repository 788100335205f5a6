/**
 * The dashboard's live data for one queue: the change feed and what it keeps
 * up to date (counts, the hour's series, workers). The feed runs while a page
 * listens to the events, and for `idleMs` after the last request otherwise,
 * so that `/counts` and `/series` answer from memory; the first request after
 * a quiet spell waits for the counts to be taken again.
 */
import type { Queue } from '../queue.js';
import { internalsOf } from '../queue-internals.js';
import { pausedView, type PausedView } from '../store/paused.js';
import type { ChangeBatch, ChangeCursor } from '../store/store.js';
import type { TimerHandle } from '../lib/clock.js';
import { createChangeFeed, type FeedMessage, type FeedStage } from './change-feed.js';
import { createLiveCounts, type CountsView } from './live-counts.js';
import { createNameStats, type OverviewView } from './name-stats.js';
import { createTimeSeries, type SeriesView } from './time-series.js';
import { createWorkers, type WorkersView } from './workers.js';

export interface DashboardLiveOptions {
  /** How often the store is read for changes while someone looks, ms. Default 250. */
  intervalMs?: number;
  /** How long the feed keeps running after the last request when no page listens, ms. Default 5 minutes. */
  idleMs?: number;
  /** How long a request waits for the first exact count, ms (then it gets partial counts, `seeding: true`). Default 10 s. */
  seedWaitMs?: number;
  /** Ids counted per read while seeding. Default 25 000. */
  sliceIds?: number;
  reseedMs?: number;
  chunkRows?: number;
  maxReplayRows?: number;
}

export interface CountsResponse extends CountsView {
  at: number;
  paused: PausedView;
}

export interface OverviewResponse extends OverviewView {
  /** The counts are partial: the first exact count is still being taken. */
  seeding?: true;
}

export interface DashboardLive {
  counts(): Promise<CountsResponse>;
  series(): Promise<SeriesView>;
  workers(): Promise<WorkersView>;
  /** One row per job name: counts, pause, throughput and waits. */
  overview(): Promise<OverviewResponse>;
  /** Sends ticks (and a reset for a cursor it cannot replay) until the returned function is called. */
  subscribe(send: (message: FeedMessage) => void, lastEventId?: string): Promise<() => void>;
  /** The change feed is reading the store (someone looked within `idleMs`). */
  running(): boolean;
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: a queue typed with any job map is accepted
export function createDashboardLive(queue: Queue<any>, options: DashboardLiveOptions = {}): DashboardLive {
  const { store, clock, logger } = internalsOf(queue);
  const idleMs = options.idleMs ?? 300_000;
  const seedWaitMs = options.seedWaitMs ?? 10_000;
  const now = () => clock.now();

  const counts = createLiveCounts({
    clock,
    own: internalsOf(queue).jobNames,
    sliceIds: options.sliceIds,
    reseedMs: options.reseedMs,
    onReseed: (reason) => logger.debug({ reason }, 'dashboard: counting jobs again'),
  });
  let seededWaiters: Array<() => void> = [];
  const countsStage: FeedStage = {
    start: () => counts.reset(),
    readOptions: (after) => counts.readOptions(after),
    apply(batch) {
      counts.apply(batch);
      if (counts.seeded() && seededWaiters.length > 0) {
        for (const resolve of seededWaiters) resolve();
        seededWaiters = [];
      }
    },
    busy: () => counts.busy(),
  };

  const series = createTimeSeries(now);
  /** The series hold the history up to here (rebuilt); later batches are added as they come. */
  let seriesFrom: ChangeCursor | null = null;
  const seriesStage: FeedStage = {
    start() {
      series.clear();
      seriesFrom = null;
    },
    apply(batch: ChangeBatch) {
      if (!counts.seeded()) return;
      if (seriesFrom === null) {
        // Counts and cursor agree here: the walk back of the backlog starts from them.
        seriesFrom = batch.cursor;
        series.rebuild(store, batch.cursor, counts.pending()).catch((err: unknown) => logger.warn({ err }, 'dashboard: rebuilding the series failed'));
      } else {
        series.add(batch);
      }
      series.sampleBacklog(counts.pending());
    },
  };

  const workers = createWorkers(store, now);
  const workersStage: FeedStage = { start: (cursor) => workers.start(cursor), apply: (batch) => workers.apply(batch) };

  const nameStats = createNameStats(now);
  /** The history before the feed's start, read into the per-name figures; later batches are added as they come. */
  let nameStatsRebuilt: Promise<void> = Promise.resolve();
  const nameStatsStage: FeedStage = {
    start(cursor) {
      nameStats.clear();
      nameStatsRebuilt = nameStats.rebuild(store, cursor).catch((err: unknown) => logger.warn({ err }, 'dashboard: rebuilding the overview failed'));
    },
    apply: (batch) => nameStats.add(batch),
  };

  const feed = createChangeFeed({
    store,
    clock,
    logger,
    stages: [countsStage, seriesStage, workersStage, nameStatsStage],
    own: internalsOf(queue).jobNames,
    counts: () => counts.view(),
    intervalMs: options.intervalMs,
    chunkRows: options.chunkRows,
    maxReplayRows: options.maxReplayRows,
  });

  // Keeps the feed running while requests wait and pages listen, and for `idleMs` after: an inner subscriber.
  let inner: Promise<() => void> | undefined;
  let idleTimer: TimerHandle | undefined;
  let users = 0;
  let closed = false;
  const use = () => {
    users++;
    if (idleTimer !== undefined) clock.clearTimeout(idleTimer);
    idleTimer = undefined;
    if (!closed) inner ??= feed.subscribe(() => {});
  };
  const done = () => {
    users--;
    if (users > 0 || closed) return;
    idleTimer = clock.setTimeout(() => {
      idleTimer = undefined;
      const stop = inner;
      inner = undefined;
      void stop?.then((unsubscribe) => unsubscribe());
    }, idleMs);
    (idleTimer as { unref?: () => void }).unref?.();
  };
  /** Runs `fn` with the feed running. */
  const using = async <T>(fn: () => Promise<T>): Promise<T> => {
    use();
    try {
      return await fn();
    } finally {
      done();
    }
  };
  const seeded = async (): Promise<void> => {
    await inner;
    if (counts.seeded()) return;
    await new Promise<void>((resolve) => {
      const timer = clock.setTimeout(resolve, seedWaitMs);
      (timer as { unref?: () => void }).unref?.();
      seededWaiters.push(() => {
        clock.clearTimeout(timer);
        resolve();
      });
    });
  };

  return {
    counts: () =>
      using(async () => {
        await seeded();
        const paused = pausedView(await store.paused(), internalsOf(queue).jobNames);
        return { at: now(), ...counts.view(), paused };
      }),
    series: () =>
      using(async () => {
        await seeded();
        return series.view();
      }),
    workers: () => using(() => workers.view()),
    overview: () =>
      using(async () => {
        await seeded();
        await nameStatsRebuilt;
        const paused = pausedView(await store.paused(), internalsOf(queue).jobNames);
        const c = counts.view();
        const view: OverviewResponse = nameStats.view(c.names, paused);
        if (c.seeding) view.seeding = true;
        return view;
      }),
    async subscribe(send, lastEventId) {
      use();
      try {
        await seeded();
        const unsubscribe = await feed.subscribe(send, lastEventId);
        let left = false;
        return () => {
          if (left) return;
          left = true;
          unsubscribe();
          done(); // the idle spell starts when the last page leaves
        };
      } catch (err) {
        done();
        throw err;
      }
    },
    running: () => feed.running(),
    async close() {
      closed = true;
      if (idleTimer !== undefined) clock.clearTimeout(idleTimer);
      for (const resolve of seededWaiters) resolve();
      seededWaiters = [];
      await feed.close();
    },
  };
}
