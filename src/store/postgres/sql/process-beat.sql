-- A process's heartbeat (process-beat.sql and process-gone.sql of the SQLite
-- store), one autocommitted statement: the row's upsert, and the deletion of
-- rows gone quiet beside it. $1 owner, $2 host, $3 pid, $4 concurrency, $5
-- names, $6 version, $7 started at, $8 now, $9 heartbeat ms, $10 beats after
-- which a quiet row is deleted. The own row is left out of the deletion: one
-- statement must not both update and delete a row (the snapshot holds its
-- old seen_at).
WITH gone AS (
  DELETE FROM {{schema}}.worker_processes WHERE owner <> $1 AND seen_at + heartbeat_ms * $10 < $8
)
INSERT INTO {{schema}}.worker_processes (owner, host, pid, concurrency, names, version, started_at, seen_at, heartbeat_ms)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (owner) DO UPDATE SET seen_at = excluded.seen_at
