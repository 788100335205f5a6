/**
 * A queue on a fresh temp file, closed and removed after each test. Under
 * `LITEJOBS_TEST_STORE=postgres` (the conformance project in vitest.config.ts)
 * the same tests get a queue on PostgreSQL instead, in a schema of their own.
 */
import { afterEach } from 'vitest';
import { createQueue, type Queue, type QueueOptions } from '../../src/index.js';
import { pgUrl, usePgSchema } from './postgres.js';
import { silentLogger } from './silent-logger.js';
import { tempDbPath } from './temp-db.js';

/** The store these tests run on: SQLite unless the conformance project says PostgreSQL. */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.LITEJOBS_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

export function useQueues(): { open(options?: Partial<QueueOptions>): Queue; path(): string } {
  const queues: Queue[] = [];
  let db: { path: string; cleanup(): void } | undefined;
  const newSchema = TEST_STORE === 'postgres' ? usePgSchema() : undefined;
  let schema: string | undefined;
  afterEach(async () => {
    for (const q of queues.splice(0)) await q.close({ timeout: 1000 });
    db?.cleanup();
    db = undefined;
    schema = undefined;
  });
  const path = () => {
    if (newSchema) throw new Error('this test reads the SQLite file itself: it does not belong to the PostgreSQL conformance project');
    db ??= tempDbPath();
    return db.path;
  };
  return {
    path,
    open(options = {}) {
      // Every queue a test opens shares one database, as they share one file under SQLite.
      if (newSchema && schema === undefined) schema = newSchema();
      const target: Partial<QueueOptions> = newSchema ? { connection: pgUrl(), schema } : { path: path() };
      const q = createQueue({ ...target, logger: silentLogger, ...options });
      queues.push(q);
      return q;
    },
  };
}
