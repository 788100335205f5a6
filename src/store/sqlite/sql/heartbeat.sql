-- A lease renewal: only the holder renews, and a renewal never shortens the
-- lease (a late renewal racing a longer one).
UPDATE jobs SET locked_until = max(locked_until, @lockedUntil)
WHERE id = @id AND state = {{processing}} AND lease_token = @token
