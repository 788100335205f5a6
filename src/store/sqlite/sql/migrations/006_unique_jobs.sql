-- Unique, debounced and throttled jobs (enqueue options `unique`, `debounce`,
-- `throttle`). Separate from `key` (idempotency), which stays taken as long
-- as its row exists: a unique key is given back (set to NULL) by the
-- transition that takes the job out of the states it guards.
--   unique_kind   'unique' | 'debounce' | 'throttle': each kind its own namespace
--   unique_key    the key while it is held; NULL once given back
--   unique_span   how long it is held, in the order of the states a job goes
--                 through: 1 until claimed, 2 while pending or processing,
--                 3 until finished, 4 whatever the state (throttle: by time)
--   unique_until  throttle: the end of the window, ms since the epoch
ALTER TABLE jobs ADD COLUMN unique_kind TEXT;
ALTER TABLE jobs ADD COLUMN unique_key TEXT;
ALTER TABLE jobs ADD COLUMN unique_span INTEGER;
ALTER TABLE jobs ADD COLUMN unique_until INTEGER;

-- Only rows that hold a key pay for the index, and it is what makes a held
-- key unique across processes.
CREATE UNIQUE INDEX jobs_unique ON jobs (unique_kind, unique_key) WHERE unique_key IS NOT NULL;
