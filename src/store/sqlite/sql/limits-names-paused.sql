-- Names paused by a RateLimitedError, until when.
SELECT key, paused_until FROM job_limits WHERE kind = 'name' AND paused_until > @now
