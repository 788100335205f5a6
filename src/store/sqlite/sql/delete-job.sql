DELETE FROM jobs WHERE id = ?
