-- Rolls the transaction back.
ROLLBACK
