DELETE FROM jobs WHERE id = @id
