/** A queue on a fresh temp file, closed and removed after each test. */
import { afterEach } from 'vitest';
import { createQueue, type Queue, type QueueOptions } from '../../src/index.js';
import { silentLogger } from './silent-logger.js';
import { tempDbPath } from './temp-db.js';

export function useQueues(): { open(options?: Partial<QueueOptions>): Queue; path(): string } {
  const queues: Queue[] = [];
  let db: { path: string; cleanup(): void } | undefined;
  afterEach(async () => {
    for (const q of queues.splice(0)) await q.close({ timeout: 1000 });
    db?.cleanup();
    db = undefined;
  });
  const path = () => {
    db ??= tempDbPath();
    return db.path;
  };
  return {
    path,
    open(options = {}) {
      const q = createQueue({ path: path(), logger: silentLogger, ...options });
      queues.push(q);
      return q;
    },
  };
}
