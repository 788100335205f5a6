/**
 * Copies the write-ahead log back into the database file on a worker thread.
 *
 * A checkpoint copies every page changed since the last one and syncs the
 * file; run by SQLite's auto-checkpoint, it lands on whichever commit crosses
 * the threshold, on the thread that claims and completes jobs (a share of a
 * drain's time one can see in its profile). Here a connection on another thread runs PASSIVE
 * checkpoints, which never block readers or writers, while the store's own
 * connection keeps a higher auto-checkpoint threshold only as a bound on the
 * WAL for when this thread falls behind or is gone.
 *
 * One thread serves every store of the process: starting a thread costs tens
 * of ms, which a process that opens many stores (tests, tools) would pay each
 * time. It starts `startAfterMs` after the first store opened (a command
 * that opens a file, reads or writes a little and closes, as most CLI
 * commands do, never starts it: the store's close would otherwise wait for
 * the thread to boot, open the file and close it again, a good part of a
 * short command's time), and ends a moment after the
 * last one closed. Meanwhile the connection's auto-checkpoint threshold
 * bounds the WAL. The pace comes from each store's clock: a checkpoint is
 * asked for every `minMs`, backing off to `maxMs` while the WAL does not grow.
 */
import type { Worker } from 'node:worker_threads';
import type { Clock, TimerHandle } from '../../lib/clock.js';
import { siblingModule, startModuleWorker } from '../../lib/module-worker.js';
import type { FromThread, ToThread } from './checkpointer-thread.js';

export interface CheckpointerOptions {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  busyTimeoutMs: number;
  clock: Clock;
  /** How long after the open the thread starts checkpointing this file (default 250 ms, on the store's clock). */
  startAfterMs?: number;
  /** Shortest and longest pause between checkpoints. */
  minMs?: number;
  maxMs?: number;
  onError(message: string): void;
}

export interface Checkpointer {
  /** Stops checkpointing this file and closes the thread's connection to it (so the last close can remove the WAL). */
  close(): Promise<void>;
}

/** How long the shared thread outlives its last store (a test opening store after store keeps one thread). */
const IDLE_END_MS = 1000;

interface Listener {
  onMessage(m: FromThread): void;
}

let thread: Worker | undefined;
let nextId = 0;
let idleTimer: NodeJS.Timeout | undefined;
let pendingCloses = 0;
const listeners = new Map<number, Listener>();

function shared(): Worker {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = undefined;
  if (thread) return thread;
  const worker = startModuleWorker(siblingModule(import.meta.url, 'checkpointer-thread'));
  worker.unref(); // open stores must not keep the process alive
  worker.on('message', (m: FromThread) => listeners.get(m.id)?.onMessage(m));
  worker.on('error', (err) => {
    for (const l of listeners.values()) l.onMessage({ type: 'error', id: -1, message: `WAL checkpoint thread stopped: ${err.message}` });
  });
  worker.on('exit', () => {
    if (thread === worker) thread = undefined;
    // A store still waiting for its close must not wait for a thread that is gone.
    for (const [id, l] of listeners) l.onMessage({ type: 'closed', id });
  });
  thread = worker;
  return worker;
}

/** Stores open in this process whose file the thread checkpoints, or will once started: one per open store (for tests and diagnostics). */
export function checkpointedFiles(): number {
  return listeners.size + waitingToStart;
}

/** Stores opened whose checkpoints have not started yet. */
let waitingToStart = 0;

/** True while the shared thread exists (for tests and diagnostics). */
export function checkpointerRunning(): boolean {
  return thread !== undefined;
}

/** The shared thread's id while it exists (for tests: which thread serves the stores). */
export function checkpointerThreadId(): number | undefined {
  return thread?.threadId;
}

function releaseWhenIdle(): void {
  if (listeners.size > 0 || !thread) return;
  const worker = thread;
  idleTimer = setTimeout(() => {
    if (listeners.size === 0 && thread === worker) void worker.terminate();
  }, IDLE_END_MS);
  idleTimer.unref();
}

export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const { clock } = options;
  const minMs = options.minMs ?? 50;
  const maxMs = options.maxMs ?? 1000;
  const id = ++nextId;
  let worker: Worker | undefined;
  let delay = minMs;
  let lastLog = -1;
  let timer: TimerHandle | undefined;
  let closing: Promise<void> | undefined;
  let closed: (() => void) | undefined;

  const post = (m: ToThread) => worker!.postMessage(m);
  const arm = () => {
    timer = clock.setTimeout(() => post({ type: 'checkpoint', id }), delay);
    (timer as { unref?: () => void }).unref?.();
  };
  const start = () => {
    waitingToStart -= 1;
    timer = undefined;
    worker = shared();
    listeners.set(id, listener);
    post({ type: 'open', id, path: options.path, synchronous: options.synchronous, busyTimeoutMs: options.busyTimeoutMs });
    arm();
  };
  const listener: Listener = {
    onMessage(m) {
      if (m.type === 'checkpointed') {
        // The WAL did not grow since the last pass: nothing new to copy, look less often.
        delay = m.log === lastLog ? Math.min(maxMs, delay * 2) : minMs;
        lastLog = m.log;
        if (!closing) arm();
      } else if (m.type === 'error') {
        options.onError(m.message.startsWith('WAL checkpoint') ? m.message : `WAL checkpoint failed: ${m.message}`);
        delay = maxMs;
        if (!closing && m.id === id) arm();
      } else {
        listeners.delete(id);
        closed?.();
        releaseWhenIdle();
      }
    },
  };
  waitingToStart += 1;
  timer = clock.setTimeout(start, options.startAfterMs ?? 250);
  (timer as { unref?: () => void }).unref?.();

  return {
    close() {
      closing ??= new Promise<void>((resolve) => {
        if (timer !== undefined) clock.clearTimeout(timer);
        if (worker === undefined) {
          waitingToStart -= 1; // never started: no thread to tell
          return resolve();
        }
        if (!listeners.has(id)) return resolve();
        closed = resolve;
        if (pendingCloses++ === 0) worker.ref(); // keep the process alive until the thread has closed its connection
        post({ type: 'close', id });
      }).finally(() => {
        if (closed && --pendingCloses === 0) worker?.unref();
      });
      return closing;
    },
  };
}
