/**
 * Statements with parameters run as named prepared statements, parsed once
 * per connection, from their third use and up to a bound per store; one whose result columns a migration by another process
 * changed (a newer litejobs adding a column that `SELECT *` reads) is
 * prepared again under a new name instead of failing.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openDatabase, type Database } from '../../src/store/postgres/open.js';
import { PLANNED_PER_CALL, PREPARED_MAX } from '../../src/store/postgres/prepared.js';
import { insertStatements } from '../../src/store/postgres/insert.js';
import { statements } from '../../src/store/postgres/statements.js';
import { transitionStatements } from '../../src/store/postgres/transition.js';
import type { InsertResult, Store } from '../../src/store/store.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';

const schema = usePgSchema();
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

const job = (n: number) => ({ name: 'j', state: 'pending', payload: JSON.stringify({ n }), key: null, priority: 0, runAt: 0, retry: null, timeout: null });

describe('prepared statements on PostgreSQL', () => {
  it('are named from their third use and kept by the connection; texts used once or twice are not', async () => {
    const db: Database = openDatabase({ connection: pgUrl(), schema: schema(), poolSize: 1 });
    open.push(db);
    for (let i = 0; i < 5; i++) await db.query('SELECT $1::int + 1 AS n', [i]);
    // Texts built per call (a search's conditions) stay unnamed.
    for (let i = 0; i < 50; i++) await db.query(`SELECT $1::int + ${i} AS once`, [i]);
    const { rows } = await db.query<{ name: string; statement: string; calls: string }>(
      "SELECT name, statement, generic_plans + custom_plans AS calls FROM pg_prepared_statements WHERE statement LIKE 'SELECT $1::int + %'",
    );
    expect(rows.map((r) => r.statement)).toEqual(['SELECT $1::int + 1 AS n']);
    expect(rows[0]!.name).toMatch(/^lj\d+_/);
    expect(Number(rows[0]!.calls)).toBe(3);
  });

  it('never name a statement planned per call: those that find jobs by an array of ids, whose kept plan would outlive the table it was made on', async () => {
    const name = schema();
    const db: Database = openDatabase({ connection: pgUrl(), schema: name, poolSize: 1 });
    open.push(db);
    const s = statements(name);
    for (const text of [s.held, transitionStatements(name, true).batch([false]), insertStatements(name).byKeys]) expect(text.startsWith(PLANNED_PER_CALL)).toBe(true);
    for (let i = 0; i < 10; i++) await db.query(s.held, [[1, 2, 3]]);
    const { rows } = await db.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
    expect(rows.filter((r) => r.statement.startsWith(PLANNED_PER_CALL))).toEqual([]);
  });

  it('are named at most PREPARED_MAX times per store: texts past that go unnamed', async () => {
    const db: Database = openDatabase({ connection: pgUrl(), schema: schema(), poolSize: 1 });
    open.push(db);
    for (let t = 0; t < PREPARED_MAX + 20; t++) for (let i = 0; i < 3; i++) await db.query(`SELECT $1::int + ${t} AS capped`, [i]);
    const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE '%AS capped'");
    expect(Number(rows[0]!.n)).toBe(PREPARED_MAX);
  });

  it("run again under new names when another process's migration changed the columns a statement reads", async () => {
    const name = schema();
    const store: Store = createPostgresStore({ connection: pgUrl(), schema: name, poolSize: 1, history: true });
    open.push(store);
    const [{ id }] = (await store.insert([job(1)], 1000)) as [InsertResult];
    // Used three times: prepared on the store's one connection.
    for (let i = 0; i < 3; i++) expect((await store.get(id))?.id).toBe(id);
    // A newer version's migration, from another connection: one more column on jobs.
    const other = new pg.Client(pgUrl());
    await other.connect();
    try {
      await other.query(`ALTER TABLE "${name}".jobs ADD COLUMN added_later int`);
    } finally {
      await other.end();
    }
    expect((await store.get(id))?.id).toBe(id);
  });
});
