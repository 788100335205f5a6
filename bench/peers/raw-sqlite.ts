/**
 * The floor: raw better-sqlite3 on the litejobs schema (its migration files)
 * with litejobs' pragmas. Plain INSERT; claim = one
 * `UPDATE … WHERE id IN (SELECT … LIMIT n) RETURNING` and complete = one
 * compare-and-set UPDATE per job, each batch in one `.immediate()` transaction.
 */
import Database from 'better-sqlite3';
import { WAL_AUTOCHECKPOINT_PAGES } from '../../src/store/sqlite/open.js';
import { migrations } from '../../src/store/sqlite/sql.js';
import type { Producer, ProducerPeer } from '../lib/producer.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import { JOB } from './litejobs.js';

/** Same pragmas as src/store/sqlite/open.ts at its defaults (NORMAL, 64 MiB cache, auto-checkpoint threshold); no checkpointer thread. */
export function openRaw(path: string): Database.Database {
  const db = new Database(path, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`cache_size = ${-64 * 1024}`);
  db.pragma('temp_store = MEMORY');
  db.pragma('journal_size_limit = 67108864');
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  db.pragma('foreign_keys = OFF');
  if ((db.pragma('user_version', { simple: true }) as number) === 0) {
    db.transaction(() => {
      // The migration files as litejobs applies them (state names filled in).
      let level = 0;
      for (const m of migrations()) {
        db.exec(m.text);
        level = m.level;
      }
      db.pragma(`user_version = ${level}`);
    }).immediate();
  }
  return db;
}

export function insertStatement(db: Database.Database): Database.Statement {
  return db.prepare(
    `INSERT INTO jobs (name, state, payload, priority, run_at, created_at, updated_at) VALUES (?, 'pending', ?, 0, ?, ?, ?)`,
  );
}

export const rawProducer: ProducerPeer = {
  label: 'raw better-sqlite3',
  system: 'raw',
  async open(dir) {
    const path = freshDbPath(dir, 'raw');
    const db = openRaw(path);
    const insert = insertStatement(db);
    const insertMany = db.transaction((ps: Array<{ i: number }>) => {
      const now = Date.now();
      for (const p of ps) insert.run(JOB, JSON.stringify(p), now, now, now);
    });
    return {
      async one(p) {
        const now = Date.now();
        return insert.run(JOB, JSON.stringify(p), now, now, now);
      },
      async many(ps) {
        insertMany.immediate(ps);
      },
      async close() {
        db.close();
        removeDb(path);
      },
    } satisfies Producer;
  },
};

/** Fills the backlog (untimed): `n` pending jobs in transactions of 10k. */
export function rawPrefill(db: Database.Database, n: number): void {
  const insert = insertStatement(db);
  const tx = db.transaction((from: number, to: number) => {
    const now = Date.now();
    for (let i = from; i < to; i++) insert.run(JOB, JSON.stringify({ i }), now, now, now);
  });
  for (let i = 0; i < n; i += 10_000) tx.immediate(i, Math.min(n, i + 10_000));
}

/**
 * Claim up to `batch` jobs, run a no-op handler on each, complete them all in
 * one transaction; repeat until `limit` jobs are done or none is left. With
 * `history`, each claim and each completion also inserts its job_history row
 * (one INSERT per row), as litejobs does at its defaults.
 */
export async function rawDrain(db: Database.Database, batch: number, limit = Number.POSITIVE_INFINITY, history = false): Promise<number> {
  const claim = db.prepare(`
    UPDATE jobs SET state = 'processing', attempts = attempts + 1, lease_owner = ?, lease_token = ?, locked_until = ?, updated_at = ?
    WHERE id IN (
      SELECT id FROM jobs WHERE state = 'pending' AND indexed = 1 AND run_at <= ? AND name = ?
      ORDER BY priority DESC, run_at, id LIMIT ?
    )
    RETURNING id, payload, lease_token`);
  const complete = db.prepare(`
    UPDATE jobs SET state = 'completed', lease_owner = NULL, lease_token = NULL, locked_until = NULL, updated_at = ?
    WHERE id = ? AND state = 'processing' AND lease_token = ?`);
  const record = db.prepare(`
    INSERT INTO job_history (job_id, from_state, to_state, event, at, worker_id, lease_token, error) VALUES (?, ?, ?, ?, ?, 'raw', ?, NULL)`);
  type Claimed = { id: number; payload: string; lease_token: string };
  const claimTx = db.transaction((n: number): Claimed[] => {
    const now = Date.now();
    const jobs = claim.all('raw', `t${now}`, now + 30_000, now, now, JOB, n) as Claimed[];
    if (history) for (const j of jobs) record.run(j.id, 'pending', 'processing', 'job.claim', now, j.lease_token);
    return jobs;
  });
  const completeTx = db.transaction((jobs: Claimed[]) => {
    const now = Date.now();
    for (const j of jobs) {
      complete.run(now, j.id, j.lease_token);
      if (history) record.run(j.id, 'processing', 'completed', 'job.complete', now, j.lease_token);
    }
  });
  const noop = (_payload: unknown): void => {};
  let done = 0;
  while (done < limit) {
    const jobs = claimTx.immediate(Math.min(batch, limit - done));
    if (jobs.length === 0) break;
    for (const j of jobs) noop(JSON.parse(j.payload));
    await null; // handlers are async in every queue: give the event loop its turn
    completeTx.immediate(jobs);
    done += jobs.length;
  }
  return done;
}
