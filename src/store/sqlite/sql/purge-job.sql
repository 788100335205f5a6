-- Removing a job on a caller's word: the compare-and-set (transition.sql) is the delete itself.
DELETE FROM jobs WHERE id = @id AND version = @version AND state = @from AND lease_token IS @token
  AND (@expiredBy IS NULL OR locked_until IS NULL OR locked_until < @expiredBy)
