-- One job by id.
SELECT * FROM jobs WHERE id = @id
