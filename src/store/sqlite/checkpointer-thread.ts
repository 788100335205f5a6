/**
 * The checkpoint thread (started by checkpointer.ts): one per process, shared
 * by every store. Each store registers its file; the thread keeps its own
 * connection to it and runs a PASSIVE checkpoint, which never blocks readers
 * or writers, each time the store's clock asks for one.
 */
import Database from 'better-sqlite3';
import { parentPort } from 'node:worker_threads';

export type ToThread =
  | { type: 'open'; id: number; path: string; synchronous: 'NORMAL' | 'FULL'; busyTimeoutMs: number }
  | { type: 'checkpoint'; id: number }
  | { type: 'close'; id: number };

export type FromThread =
  | { type: 'checkpointed'; id: number; log: number }
  | { type: 'error'; id: number; message: string }
  | { type: 'closed'; id: number };

interface Registered {
  db: Database.Database;
  checkpoint: Database.Statement<[], { busy: number; log: number; checkpointed: number }>;
}

const port = parentPort!;
const files = new Map<number, Registered>();
const send = (m: FromThread) => port.postMessage(m);
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

port.on('message', (m: ToThread) => {
  if (m.type === 'open') {
    try {
      const db = new Database(m.path, { timeout: m.busyTimeoutMs });
      db.pragma(`synchronous = ${m.synchronous}`);
      files.set(m.id, { db, checkpoint: db.prepare('PRAGMA wal_checkpoint(PASSIVE)') });
    } catch (err) {
      send({ type: 'error', id: m.id, message: message(err) });
    }
  } else if (m.type === 'checkpoint') {
    const file = files.get(m.id);
    if (!file) return;
    try {
      send({ type: 'checkpointed', id: m.id, log: file.checkpoint.get()!.log });
    } catch (err) {
      send({ type: 'error', id: m.id, message: message(err) });
    }
  } else {
    files.get(m.id)?.db.close();
    files.delete(m.id);
    send({ type: 'closed', id: m.id });
  }
});
