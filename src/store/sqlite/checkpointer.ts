/**
 * Copies the write-ahead log back into the database file on a worker thread.
 *
 * A checkpoint copies every page changed since the last one and syncs the
 * file; run by SQLite's auto-checkpoint, it lands on whichever commit crosses
 * the threshold, on the thread that claims and completes jobs (measured ~10%
 * of a drain's time). Here a second connection on its own thread runs PASSIVE
 * checkpoints, which never block readers or writers, while the store's own
 * connection keeps a higher auto-checkpoint threshold only as a bound on the
 * WAL for when this thread falls behind or is gone.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface CheckpointerOptions {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  busyTimeoutMs: number;
  /** Shortest and longest pause between checkpoints: it backs off while the WAL does not grow. */
  minMs?: number;
  maxMs?: number;
  onError(message: string): void;
}

export interface Checkpointer {
  /** Stops the thread and closes its connection (so the last close can remove the WAL). */
  close(): Promise<void>;
}

// The thread's code, as CommonJS text: the same in src/ (run by tsx) and dist/.
const THREAD = `
const { parentPort, workerData: o } = require('node:worker_threads');
const Database = require(o.driver);
const db = new Database(o.path, { timeout: o.busyTimeoutMs });
db.pragma('synchronous = ' + o.synchronous);
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let delay = o.minMs;
let lastLog = -1;
let timer;
const tick = () => {
  try {
    const { log } = checkpoint.get();
    // The WAL did not grow since the last pass: nothing new to copy, look less often.
    delay = log === lastLog ? Math.min(o.maxMs, delay * 2) : o.minMs;
    lastLog = log;
  } catch (err) {
    parentPort.postMessage({ error: err && err.message ? err.message : String(err) });
    delay = o.maxMs;
  }
  timer = setTimeout(tick, delay);
};
timer = setTimeout(tick, delay);
parentPort.on('message', () => {
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
`;

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: {
      driver,
      path: options.path,
      synchronous: options.synchronous,
      busyTimeoutMs: options.busyTimeoutMs,
      minMs: options.minMs ?? 50,
      maxMs: options.maxMs ?? 1000,
    },
  });
  // A queue left open must not keep the process alive.
  worker.unref();
  worker.on('message', (m: { error?: string }) => {
    if (m.error) options.onError(`WAL checkpoint failed: ${m.error}`);
  });
  worker.on('error', (err) => options.onError(`WAL checkpoint thread stopped: ${err.message}`));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        worker.ref(); // keep the process alive until the thread has closed its connection
        worker.postMessage('close');
        await exited;
      })();
      return closing;
    },
  };
}
