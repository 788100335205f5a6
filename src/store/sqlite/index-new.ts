/**
 * Puts jobs committed on their own into the claim index and moves the mark
 * past every job (index-new.sql, index-mark.sql). Inserts run it after a
 * batch; every delete runs it first, so the mark stays above every id ever
 * handed out and no insert reuses one. Prepared once per connection: the
 * store's own, and an application's (`createQueue({ database })`).
 */
import type Database from 'better-sqlite3';
import { sql } from './sql.js';

const byConnection = new WeakMap<Database.Database, () => void>();

export function newJobIndexer(db: Database.Database): () => void {
  let index = byConnection.get(db);
  if (!index) {
    const indexNew = db.prepare(sql('index-new'));
    const indexMark = db.prepare(sql('index-mark'));
    index = () => {
      indexNew.run();
      indexMark.run();
    };
    byConnection.set(db, index);
  }
  return index;
}
