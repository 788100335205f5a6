-- The process registry: one row per process running workers on the file,
-- written when its queue starts, renewed by its heartbeat, deleted when it
-- stops. A row whose heartbeat is older than a few intervals belongs to a
-- process that is gone (killed, or cut off): readers leave it out, and the
-- next heartbeat of any process deletes it.
--   owner         the lease owner id its claims write (`host:pid:random`)
--   concurrency   its worker slots
--   names         JSON array of the job names it runs
--   version       the litejobs version it runs
--   seen_at       its last heartbeat, ms
--   heartbeat_ms  how often it renews seen_at
CREATE TABLE worker_processes (
  owner        TEXT PRIMARY KEY,
  host         TEXT NOT NULL,
  pid          INTEGER NOT NULL,
  concurrency  INTEGER NOT NULL,
  names        TEXT NOT NULL,
  version      TEXT NOT NULL,
  started_at   INTEGER NOT NULL,
  seen_at      INTEGER NOT NULL,
  heartbeat_ms INTEGER NOT NULL
) WITHOUT ROWID;
