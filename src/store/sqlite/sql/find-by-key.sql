SELECT id, state FROM jobs WHERE key = @key
