-- The job holding an idempotency key, as it is now (an insert whose key was taken hands it back).
SELECT id, state FROM jobs WHERE key = @key
