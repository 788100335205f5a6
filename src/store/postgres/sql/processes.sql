-- The processes running workers, those heard from lately (processes.sql of
-- the SQLite store): $1 now, $2 beats after which a quiet row is left out.
SELECT owner, host, pid, concurrency, names, version, started_at AS "startedAt", seen_at AS "seenAt", heartbeat_ms AS "heartbeatMs"
FROM {{schema}}.worker_processes WHERE seen_at + heartbeat_ms * $2 >= $1 ORDER BY owner
