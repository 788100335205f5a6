/**
 * Direct statements on a test's database, SQLite file or PostgreSQL schema
 * alike: `?` placeholders become `$n` on PostgreSQL, and the schema is the
 * search path, so one statement text serves both stores.
 */
import Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import type { Client } from '../../src/store/postgres/driver.js';

export interface RawSql {
  query<R>(text: string, params: readonly unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

type PgClient = Client & { setTypeParser(oid: number, parse: (text: string) => unknown): void };
const pg = createRequire(import.meta.url)('pg') as { Client: new (config: { connectionString: string }) => PgClient };
const INT8 = 20;
const NUMERIC = 1700;

export async function openRawSql(target: { path: string } | { connection: string; schema: string }): Promise<RawSql> {
  if ('path' in target) {
    const db = new Database(target.path);
    db.pragma('busy_timeout = 5000');
    return {
      async query<R>(text: string, params: readonly unknown[]) {
        const statement = db.prepare(text);
        if (statement.reader) return statement.all(...params) as R[];
        statement.run(...params);
        return [];
      },
      async close() {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: target.connection });
  client.setTypeParser(INT8, Number);
  client.setTypeParser(NUMERIC, Number);
  await client.connect();
  await client.query(`SET search_path TO "${target.schema}"`);
  return {
    async query<R>(text: string, params: readonly unknown[]) {
      let n = 0;
      return (await client.query<R>(text.replace(/\?/g, () => `$${++n}`), params)).rows;
    },
    async close() {
      await client.end();
    },
  };
}
