SELECT id FROM jobs WHERE key = @key
