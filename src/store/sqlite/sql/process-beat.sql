-- A process's heartbeat: its registry row, written on the first beat and
-- renewed (`seen_at`) on each one after; a row deleted meanwhile (its
-- heartbeat had aged out while the process was stalled) is written again.
INSERT INTO worker_processes (owner, host, pid, concurrency, names, version, started_at, seen_at, heartbeat_ms)
VALUES (@owner, @host, @pid, @concurrency, @names, @version, @startedAt, @seenAt, @heartbeatMs)
ON CONFLICT (owner) DO UPDATE SET seen_at = excluded.seen_at
