-- The registered processes still beating at @now (a row gone quiet for
-- @beats of its intervals is left out: process-gone.sql deletes it).
SELECT owner, host, pid, concurrency, names, version, started_at AS startedAt, seen_at AS seenAt, heartbeat_ms AS heartbeatMs
FROM worker_processes
WHERE seen_at + heartbeat_ms * @beats >= @now
ORDER BY owner
