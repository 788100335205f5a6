/**
 * Tests on a real PostgreSQL server: `LITEJOBS_TEST_PG`, or the local one.
 * Each test gets a schema of its own, dropped after it.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterEach } from 'vitest';
import type { Client } from '../../src/store/postgres/driver.js';

export function pgUrl(): string {
  return process.env.LITEJOBS_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
}

const pg = createRequire(import.meta.url)('pg') as { Client: new (config: { connectionString: string }) => Client };

/** A plain connection of the test's own (to look at tables, or to break things), ended by the caller. */
export async function pgClient(): Promise<Client> {
  const client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
  return client;
}

/**
 * Resolves once another session waits for a lock that `holder`'s session
 * holds (PostgreSQL's pg_blocking_pids): the call a test races against
 * `holder`'s open transaction is blocked on it, and cannot finish before its
 * COMMIT. Fails after `ms`.
 */
export async function blockedBy(holder: Client, ms = 10_000): Promise<void> {
  const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const pid = rows[0]!.pid;
  const look = await pgClient();
  try {
    for (const deadline = Date.now() + ms; ; ) {
      const waiting = await look.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
      if (waiting.rows[0]!.n > 0) return;
      if (Date.now() > deadline) throw new Error(`no session waited on a lock of backend ${pid} within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await look.end();
  }
}

/**
 * Registers the cleanup and returns a function that makes a fresh schema name
 * (`lj_test_<random>`); every name it gave is dropped after each test.
 */
export function usePgSchema(): () => string {
  const made: string[] = [];
  afterEach(async () => {
    const names = made.splice(0);
    if (names.length === 0) return;
    const client = await pgClient();
    try {
      for (const name of names) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    } finally {
      await client.end();
    }
  });
  return () => {
    const name = `lj_test_${randomBytes(6).toString('hex')}`;
    made.push(name);
    return name;
  };
}
