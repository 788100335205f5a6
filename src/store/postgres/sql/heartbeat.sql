-- A lease renewal (the SQLite store's heartbeat.sql): $1 job id, $2 lease
-- token, $3 the lease's new end. Only the holder renews, and a renewal never
-- shortens the lease (a late renewal racing a longer one); a hold (a job
-- moved on while its run goes on) is renewed too. Answers whether the job is
-- still in the claimed state (no row: the lease is gone).
UPDATE {{schema}}.jobs SET locked_until = greatest(locked_until, $3)
WHERE id = $1 AND lease_token = $2
RETURNING state = {{processing}} AS running
