SELECT id, state FROM jobs WHERE unique_kind = @kind AND unique_key = @key
