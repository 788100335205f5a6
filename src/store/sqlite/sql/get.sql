SELECT * FROM jobs WHERE id = @id
