/** Stores on fresh PostgreSQL schemas for the tests in this folder, closed after each test. */
import { afterEach } from 'vitest';
import { createPostgresStore, type PostgresStoreOptions } from '../../src/store/postgres/postgres-store.js';
import type { NewJob, Store, TransitionRequest } from '../../src/store/store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';

export function usePgStores(): { open(o?: Partial<PostgresStoreOptions>): Store; schema(): string } {
  const schema = usePgSchema();
  const open: Store[] = [];
  // Registered after usePgSchema's: vitest runs afterEach hooks in reverse, so stores close before their schema is dropped.
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  return {
    schema,
    open(o = {}) {
      const store = createPostgresStore({ connection: pgUrl(), schema: o.schema ?? schema(), history: true, ...o });
      open.push(store);
      return store;
    },
  };
}

export const NOW = 1_000_000;

export const job = (o: Partial<NewJob> = {}): NewJob => ({ name: 'a', state: 'pending', payload: '{}', key: null, priority: 0, runAt: NOW, retry: null, timeout: null, ...o });

/** The jobs of one claim (`claimResult` for what it left behind too). */
export const claimResult = (store: Store, o: { names?: string[]; limit?: number; owner?: string; now?: number } = {}) =>
  store.claim({ names: o.names ?? ['a'], limit: o.limit ?? 10, owner: o.owner ?? 'w1', leaseMs: 1000, now: o.now ?? NOW, rule: CLAIM_RULE });
export const claimOf = async (store: Store, o: Parameters<typeof claimResult>[1] = {}) => (await claimResult(store, o)).jobs;

export const move = (o: Pick<TransitionRequest, 'id' | 'version' | 'from' | 'token' | 'to'> & Partial<TransitionRequest>): TransitionRequest => ({
  event: 'job.complete',
  at: NOW + 10,
  attempts: 1,
  lastError: null,
  ctx: null,
  ...o,
});
