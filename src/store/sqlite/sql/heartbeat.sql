-- A lease renewal: only the holder renews, and a renewal never shortens the
-- lease (a late renewal racing a longer one). A run whose job was moved on
-- without it (a cancel: transition-set.sql) still holds the job until its
-- handler returns, and renews that hold too; `running` says whether the job
-- is still in the claimed state (no row: the lease is gone).
UPDATE jobs SET locked_until = max(locked_until, @lockedUntil)
WHERE id = @id AND lease_token = @token
RETURNING state = {{processing}} AS running
