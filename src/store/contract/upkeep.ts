/**
 * Keeping a store: online backups and the doctor's report.
 */

/** Backup progress, in database pages. */
export interface BackupProgress {
  totalPages: number;
  remainingPages: number;
}

/** What `doctor` reports: the file's health and size, and leases nobody renews. */
export interface StoreDiagnostics {
  store: 'sqlite' | 'postgres';
  path: string;
  /** Size of the database file, bytes. */
  fileBytes: number;
  /** Size of the write-ahead log, bytes (0 right after a checkpoint). */
  walBytes: number;
  pageSize: number;
  pageCount: number;
  /** Pages on the free list (reused before the file grows). */
  freePages: number;
  /** The page cache this connection may hold, bytes. */
  cacheBytes: number;
  journalMode: string;
  /** Processing jobs whose lease ran out (their worker is gone or stuck; the sweeper retries them). */
  expiredLeases: number;
  /** `PRAGMA integrity_check`'s lines (`['ok']` when sound); only when asked for. */
  integrity?: string[];
}
