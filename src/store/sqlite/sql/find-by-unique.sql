-- The job holding a unique, debounce or throttle key (insert-unique.ts).
SELECT id, state FROM jobs WHERE unique_kind = @kind AND unique_key = @key
