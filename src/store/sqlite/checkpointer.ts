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
import { siblingModule, startModuleWorker } from '../../lib/module-worker.js';
import type { CheckpointerMessage, CheckpointerThreadData } from './checkpointer-thread.js';

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

export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const workerData: CheckpointerThreadData = {
    path: options.path,
    synchronous: options.synchronous,
    busyTimeoutMs: options.busyTimeoutMs,
    minMs: options.minMs ?? 50,
    maxMs: options.maxMs ?? 1000,
  };
  const worker = startModuleWorker(siblingModule(import.meta.url, 'checkpointer-thread'), { workerData });
  // A queue left open must not keep the process alive.
  worker.unref();
  worker.on('message', (m: CheckpointerMessage) => {
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
