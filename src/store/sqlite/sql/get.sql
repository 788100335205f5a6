SELECT * FROM jobs WHERE id = ?
