-- Pauses a name or a group after a RateLimitedError (limits-pause.sql of the
-- SQLite store): $1 kind ('name' or 'group'), $2 key, $3 until, $4 now. A
-- later pause already set stays.
INSERT INTO {{schema}}.job_limits AS l (kind, key, paused_until, updated_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (kind, key) DO UPDATE SET paused_until = greatest(coalesce(l.paused_until, 0), excluded.paused_until), updated_at = excluded.updated_at
