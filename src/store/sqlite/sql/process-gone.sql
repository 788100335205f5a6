-- Rows of processes long gone quiet: no heartbeat for @beats of their intervals
-- (killed, or cut off from the file). Deleted with every heartbeat.
DELETE FROM worker_processes WHERE seen_at + heartbeat_ms * @beats < @now
