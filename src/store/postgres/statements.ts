/**
 * The PostgreSQL store's small statements, each in a file of sql/ named as
 * the SQLite store's counterpart in src/store/sqlite/sql/, with the same
 * semantics. Names and states are bound as arrays (`= ANY($n)`).
 */
import { statement } from './sql.js';

export function statements(schema: string) {
  const q = (name: string) => statement(name, schema);
  return {
    heartbeat: q('heartbeat'),
    releaseHold: q('release-hold'),
    expiredHolds: q('expired-holds'),
    held: q('holds-lease'),
    progress: q('progress'),
    expired: q('expired-leases'),
    due: q('due-jobs'),
    nextDue: q('next-due-at'),
    nextPending: q('next-pending-at'),
    get: q('get'),
    outcome: q('outcome'),
    history: q('history'),
    stats: q('stats'),
    pause: q('pause'),
    resume: q('resume'),
    paused: q('paused'),
    ping: q('ping'),
    databaseNow: q('database-now'),
    expiredCount: q('expired-count'),
    sizes: q('sizes'),
    notify: q('notify'),
  };
}

export type Statements = ReturnType<typeof statements>;
