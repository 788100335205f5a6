-- A bucket's log after a claim spent from it (claim-limits.ts `spend`).
INSERT INTO job_limits (kind, key, spent, updated_at) VALUES (@kind, @key, @spent, @now)
ON CONFLICT (kind, key) DO UPDATE SET spent = excluded.spent, updated_at = excluded.updated_at
