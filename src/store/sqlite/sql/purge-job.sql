-- Finishing a job whose retention is 0: the compare-and-set is the delete itself.
DELETE FROM jobs WHERE id = @id AND state = @from AND lease_token IS @token
