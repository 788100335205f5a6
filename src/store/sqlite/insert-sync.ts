/**
 * The store's synchronous insert (Store.insertSync, behind `enqueueSync`):
 * with the application's connection when the queue was given one, inside the
 * application's transaction if one is open; otherwise with the store's own.
 * The same inserts as insert() (insert.ts), prepared once per connection.
 */
import type Database from 'better-sqlite3';
import { ValidationError } from '../../errors.js';
import type { NewJob, SyncInsert } from '../store.js';
import { sqliteInsertOn } from './insert.js';

/**
 * `own`: the store's connection, whose busy timeout is `idleBusyTimeoutMs`
 * (0: the store waits for locks from the event loop, guard.ts); `app`: the
 * application's, if given.
 */
export function createSyncInsert(
  own: Database.Database,
  app: Database.Database | undefined,
  busyTimeoutMs: number,
  idleBusyTimeoutMs: number,
): (jobs: readonly NewJob[], at: number) => SyncInsert {
  if (app) {
    return (jobs, at) => {
      if (!app.open) throw new ValidationError(`enqueueSync: the application's database ${app.name} is closed`);
      // Outside a transaction of the application's, the insert commits by itself before it returns.
      const committed = !app.inTransaction;
      return { results: sqliteInsertOn(app)(jobs, at), committed };
    };
  }
  // A synchronous call cannot wait for a lock from the event loop: SQLite
  // itself waits, up to busyTimeout, for this one call.
  return (jobs, at) => {
    own.pragma(`busy_timeout = ${busyTimeoutMs}`);
    try {
      return { results: sqliteInsertOn(own)(jobs, at), committed: true };
    } finally {
      own.pragma(`busy_timeout = ${idleBusyTimeoutMs}`);
    }
  };
}
