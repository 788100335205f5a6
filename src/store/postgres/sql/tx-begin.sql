-- Opens a transaction (connect.ts tx).
BEGIN
