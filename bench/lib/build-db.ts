/**
 * Builds a litejobs database with many rows fast: litejobs creates the file
 * (its own migrations), then plain INSERTs in big transactions fill it.
 */
import Database from 'better-sqlite3';
import { JOB, openLitejobs } from '../peers/litejobs.js';
import { removeDb } from './tmp.js';

export interface Fill {
  completed: number;
  pending: number;
}

export async function buildLitejobsDb(path: string, fill: Fill): Promise<void> {
  removeDb(path);
  const { queue } = openLitejobs(path, {});
  await queue.close();
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    const insert = db.prepare(
      'INSERT INTO jobs (name, state, payload, priority, run_at, attempts, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?, ?, ?)',
    );
    const chunk = db.transaction((state: string, from: number, to: number) => {
      const now = Date.now();
      const attempts = state === 'completed' ? 1 : 0;
      for (let i = from; i < to; i++) insert.run(JOB, state, `{"i":${i}}`, now, attempts, now, now);
    });
    let i = 0;
    for (const [state, count] of [['completed', fill.completed], ['pending', fill.pending]] as const) {
      const end = i + count;
      for (; i < end; i = Math.min(end, i + 50_000)) chunk.immediate(state, i, Math.min(end, i + 50_000));
    }
    // Every row went into the claim index as it was written, as litejobs' batch inserts do.
    db.prepare("UPDATE queue_meta SET value = (SELECT max(id) FROM jobs) WHERE key = 'indexed_upto'").run();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
