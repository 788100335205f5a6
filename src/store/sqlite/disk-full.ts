/**
 * Recovery after SQLITE_FULL: the WAL would stay at its high-water mark and
 * keep the disk full after space comes back, so it is copied back and cut to
 * nothing as soon as that can be done.
 */
import type Database from 'better-sqlite3';

export function createFullDiskRecovery(db: Database.Database, path: string, onWarning: ((message: string) => void) | undefined): (retry: boolean) => boolean {
  /**
   * After SQLITE_FULL: copy the WAL back and cut it to nothing, so the space it
   * held comes back (up to its high-water mark, with the frames of the write
   * that failed). The checkpoint first copies back the pages committed since
   * the last one, which may need room the disk does not have, and a reader
   * may hold the WAL: then false, and the guard calls again with `retry`
   * until it succeeds. Warns when it truncates, and the first time it cannot.
   */
  return (retry: boolean): boolean => {
    if (!db.open) return true;
    let why: string;
    try {
      const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number; checkpointed: number }>;
      if (r && r.busy === 0) {
        onWarning?.(`database ${path}: ${retry ? 'after the full disk,' : 'disk full;'} checkpointed and truncated the WAL`);
        return true;
      }
      why = 'a reader holds it';
    } catch (err) {
      why = `WAL checkpoint failed: ${(err as Error).message}`;
    }
    if (!retry) onWarning?.(`database ${path}: disk full; the WAL could not be truncated yet (${why}), trying again`);
    return false;
  };
}
