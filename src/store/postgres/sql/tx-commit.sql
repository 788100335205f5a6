-- Commits the transaction.
COMMIT
