-- No claim of a name or group before @until; a later pause already set stays.
INSERT INTO job_limits (kind, key, paused_until, updated_at) VALUES (@kind, @key, @until, @now)
ON CONFLICT (kind, key) DO UPDATE SET paused_until = max(coalesce(paused_until, 0), excluded.paused_until), updated_at = excluded.updated_at
