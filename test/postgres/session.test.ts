/**
 * Every litejobs session on PostgreSQL carries the timeout that ends a
 * transaction left idle (by a process that stopped mid-transaction), so its
 * row locks cannot stall the other processes' lease sweeps for long.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { IDLE_IN_TRANSACTION_MS, openDatabase, type Database } from '../../src/store/postgres/open.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';

const schema = usePgSchema();
let db: Database | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

describe('PostgreSQL sessions', () => {
  it('carry idle_in_transaction_session_timeout', async () => {
    db = openDatabase({ connection: pgUrl(), schema: schema(), poolSize: 2 });
    const seen = await db.tx(async (client) => (await client.query<{ idle_in_transaction_session_timeout: string }>('SHOW idle_in_transaction_session_timeout')).rows[0]!.idle_in_transaction_session_timeout);
    expect(seen).toBe(`${IDLE_IN_TRANSACTION_MS / 1000}s`);
  });
});
