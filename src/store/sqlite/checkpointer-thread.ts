/**
 * The checkpointer's thread (started by checkpointer.ts): its own connection
 * runs PASSIVE checkpoints, which never block readers or writers, backing off
 * while the WAL does not grow. A message from the parent closes it.
 */
import Database from 'better-sqlite3';
import { parentPort } from 'node:worker_threads';
import { threadWorkerData } from '../../lib/module-worker.js';

export interface CheckpointerThreadData {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  busyTimeoutMs: number;
  minMs: number;
  maxMs: number;
}

export interface CheckpointerMessage {
  error: string;
}

const o = threadWorkerData<CheckpointerThreadData>();
const port = parentPort!;
const db = new Database(o.path, { timeout: o.busyTimeoutMs });
db.pragma(`synchronous = ${o.synchronous}`);
const checkpoint = db.prepare<[], { busy: number; log: number; checkpointed: number }>('PRAGMA wal_checkpoint(PASSIVE)');
let delay = o.minMs;
let lastLog = -1;
let timer: NodeJS.Timeout | undefined;

const tick = (): void => {
  try {
    const { log } = checkpoint.get()!;
    // The WAL did not grow since the last pass: nothing new to copy, look less often.
    delay = log === lastLog ? Math.min(o.maxMs, delay * 2) : o.minMs;
    lastLog = log;
  } catch (err) {
    port.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies CheckpointerMessage);
    delay = o.maxMs;
  }
  timer = setTimeout(tick, delay);
};
timer = setTimeout(tick, delay);

port.on('message', () => {
  clearTimeout(timer);
  db.close();
  port.close();
});
