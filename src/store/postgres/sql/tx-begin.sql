-- Opens a transaction (open.ts tx).
BEGIN
