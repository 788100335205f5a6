/**
 * A queue on a fresh SQLite file, served as `litejobs serve` serves it on a
 * free loopback port: what every dashboard browser test starts from.
 * `close` stops the server, then the queue, then removes the file.
 */
import { startServer, type RunningServer } from '../../src/http/index.js';
import { createQueue, type Queue, type QueueOptions } from '../../src/index.js';
import { silentLogger } from './silent-logger.js';
import { tempDbPath } from './temp-db.js';

export interface ServedQueue {
  queue: Queue;
  server: RunningServer;
  /** The SQLite file, for a test that also writes to it directly. */
  path: string;
  close(): Promise<void>;
}

export async function serveQueue(options: Omit<QueueOptions, 'path'> = {}, server: { readOnly?: boolean } = {}): Promise<ServedQueue> {
  const db = tempDbPath();
  const queue = createQueue({ logger: silentLogger, ...options, path: db.path });
  try {
    const running = await startServer({ queue, port: 0, ...server });
    const close = async () => {
      try {
        await running.close();
        await queue.close();
      } finally {
        db.cleanup();
      }
    };
    return { queue, server: running, path: db.path, close };
  } catch (err) {
    await queue.close();
    db.cleanup();
    throw err;
  }
}
