-- The process registry (the SQLite file's migration 012): one row per
-- process running workers on the schema, written when its queue starts,
-- renewed by its heartbeat, deleted when it stops. A row whose heartbeat is
-- older than a few intervals belongs to a process that is gone: readers
-- leave it out, and the next heartbeat of any process deletes it.
CREATE TABLE {{schema}}.worker_processes (
  owner        text COLLATE "C" PRIMARY KEY,
  host         text    NOT NULL,
  pid          integer NOT NULL,
  concurrency  integer NOT NULL,
  names        text    NOT NULL,
  version      text    NOT NULL,
  started_at   bigint  NOT NULL,
  seen_at      bigint  NOT NULL,
  heartbeat_ms integer NOT NULL
);
