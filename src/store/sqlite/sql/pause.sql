-- queue.pause: idempotent; the first pause's time is kept.
INSERT INTO paused_names (name, paused_at) VALUES (@name, @at) ON CONFLICT (name) DO NOTHING
