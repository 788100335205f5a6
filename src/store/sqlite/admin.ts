/**
 * The SQLite store's operator side: pausing names, the health check, the
 * figures `doctor` prints, and the online backup. Nothing here is on the
 * claim path except `paused`, which the claim reads inside its transaction.
 */
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { BackupProgress, StoreDiagnostics } from '../store.js';
import { sql } from './sql.js';

export interface SqliteAdmin {
  setPaused(name: string, paused: boolean, at: number): void;
  /** The paused names (`''` for the whole queue); a read of a tiny table, cheap enough for every claim. */
  paused(): string[];
  ping(): void;
  diagnose(options: { integrity: boolean; now: number }): StoreDiagnostics;
  backup(destination: string, onProgress?: (progress: BackupProgress) => void): Promise<void>;
}

/** Pages copied per backup step: small enough that writers in other processes are not held up long. */
const BACKUP_PAGES_PER_STEP = 1024;

const sizeOf = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0; // no WAL file right now (in memory, or not yet created)
  }
};

export function createSqliteAdmin(db: Database.Database, path: string): SqliteAdmin {
  const s = {
    pause: db.prepare(sql('pause')),
    resume: db.prepare(sql('resume')),
    paused: db.prepare(sql('paused')).pluck(),
    expired: db.prepare(sql('expired-count')).pluck(),
    // A read that touches the file (a constant would not): the migration level.
    ping: db.prepare('PRAGMA user_version').pluck(),
  };
  const pragma = (name: string): number | string => db.pragma(name, { simple: true }) as number | string;

  return {
    setPaused(name, paused, at) {
      if (paused) s.pause.run({ name, at });
      else s.resume.run({ name });
    },
    paused: () => s.paused.all() as string[],
    ping() {
      s.ping.get();
    },
    diagnose({ integrity, now }) {
      const pageSize = Number(pragma('page_size'));
      const cache = Number(pragma('cache_size'));
      const out: StoreDiagnostics = {
        store: 'sqlite',
        path,
        fileBytes: sizeOf(path),
        walBytes: sizeOf(`${path}-wal`),
        pageSize,
        pageCount: Number(pragma('page_count')),
        freePages: Number(pragma('freelist_count')),
        // Negative cache_size is KiB, positive is pages (SQLite's convention).
        cacheBytes: cache < 0 ? -cache * 1024 : cache * pageSize,
        journalMode: String(pragma('journal_mode')),
        expiredLeases: s.expired.get({ now }) as number,
      };
      if (integrity) out.integrity = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
      return out;
    },
    async backup(destination, onProgress) {
      // The copy reads from a connection of its own that holds one read
      // transaction throughout, so every step copies the same snapshot. Each
      // step would otherwise start a new read, and SQLite restarts a backup
      // whose source another connection committed to in between: under
      // steady writes from other processes it would never end.
      const source = path === ':memory:' ? db : new Database(path, { readonly: true, fileMustExist: true });
      try {
        if (source !== db) {
          source.exec('BEGIN');
          source.prepare('SELECT count(*) FROM sqlite_master').get(); // the read that starts the snapshot
        }
        await source.backup(destination, {
          progress: ({ totalPages, remainingPages }) => {
            onProgress?.({ totalPages, remainingPages });
            return BACKUP_PAGES_PER_STEP;
          },
        });
      } finally {
        if (source !== db) source.close(); // ends the read transaction
      }
    },
  };
}
