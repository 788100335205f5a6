-- A throttle key whose window has passed is given back, for the new job to take.
UPDATE jobs SET unique_key = NULL
WHERE unique_kind = @kind AND unique_key = @key AND unique_until <= @at
