import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { dumpSchema } from '../../src/store/sqlite/schema.js';
import { withStates } from '../../src/store/sqlite/sql.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { tempDbPath } from '../helpers/temp-db.js';

const MIGRATIONS = new URL('../../src/store/sqlite/sql/migrations/', import.meta.url);
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function freshPath(): string {
  const db = tempDbPath();
  cleanups.push(db.cleanup);
  return db.path;
}

function open(path: string, retentionIndex = false) {
  return createSqliteStore({ path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 1000, history: true, retentionIndex });
}

function schema(path: string): { level: number; indexes: string[] } {
  const db = new Database(path, { readonly: true });
  try {
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' ORDER BY name").pluck().all() as string[];
    return { level: db.pragma('user_version', { simple: true }) as number, indexes };
  } finally {
    db.close();
  }
}

describe('schema', () => {
  it('a fresh file holds exactly the committed src/store/sqlite/schema.sql (run `npm run schema` after a migration)', async () => {
    const path = freshPath();
    await open(path).close();
    const db = new Database(path, { readonly: true });
    const dumped = dumpSchema(db);
    db.close();
    expect(dumped).toBe(readFileSync(new URL('../../src/store/sqlite/schema.sql', import.meta.url), 'utf8'));
  });

  it('migrates a file made by the first schema, keeping its jobs', async () => {
    const path = freshPath();
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    old.exec(withStates(readFileSync(new URL('001_init.sql', MIGRATIONS), 'utf8'), '001_init.sql'));
    old.pragma('user_version = 1');
    old.prepare("INSERT INTO jobs (name, state, payload, run_at, created_at, updated_at) VALUES ('j', 'completed', '1', 0, 0, 0)").run();
    old.prepare("INSERT INTO jobs (name, state, payload, run_at, created_at, updated_at) VALUES ('j', 'pending', '2', 0, 0, 0)").run();
    old.close();
    expect(schema(path).indexes).toContain('jobs_finished');

    const store = open(path);
    const job = await store.get(1);
    const claimed = (await store.claim({ names: ['j'], limit: 10, owner: 'o', leaseMs: 1000, now: 1, rule: CLAIM_RULE })).jobs;
    await store.close();
    expect(job?.state).toBe('completed');
    expect(claimed.map((c) => c.id)).toEqual([2]);
    // Rows from before versions start at 0; the claim moved the claimed one on.
    expect(job?.version).toBe(0);
    expect(claimed.map((c) => c.version)).toEqual([1]);
    expect(schema(path)).toEqual({ level: 21, indexes: ['jobs_children', 'jobs_delayed', 'jobs_group_running', 'jobs_grouped', 'jobs_held', 'jobs_key', 'jobs_leased', 'jobs_ready', 'jobs_unique', 'jobs_waiting'] });
  });

  it('builds the index of finished jobs by age only for a queue that deletes them after a while', async () => {
    const path = freshPath();
    await (await open(path)).close();
    expect(schema(path).indexes).not.toContain('jobs_finished');

    const store = open(path, true);
    expect(schema(path).indexes).toContain('jobs_finished');
    expect(await store.purgeFinished('completed', Date.now(), 10)).toBe(0);
    await store.close();
  });

  it('a purge on a file without the index builds it instead of failing', async () => {
    const path = freshPath();
    const store = open(path);
    expect(await store.purgeFinished('completed', Date.now(), 10)).toBe(0);
    await store.close();
    expect(schema(path).indexes).toContain('jobs_finished');
  });
});
