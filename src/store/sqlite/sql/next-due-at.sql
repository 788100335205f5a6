-- Called per (state, name): min() over an equality prefix of jobs_state is one seek.
-- May be in the past for a delayed state that is due but not yet promoted.
SELECT min(run_at) AS at FROM jobs WHERE state = :state AND name = :name
