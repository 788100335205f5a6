-- The start check's read (holds-lease.sql of the SQLite store, for a batch of
-- leases at once): $1 job ids. Answers each job's state and lease token; the
-- caller compares them (held: processing, under the same token).
--
-- By primary key, and nothing else: before the table has statistics the
-- planner took it for small, so a condition on the state read all of
-- jobs_leased (every processing job, 9 ms at 20,000, for each read), and the
-- bound array, whose ids it counts, a sequential scan. `ANY (ARRAY(…))` it
-- estimates at 10 ids: it reads the index.
SELECT id, state, lease_token FROM {{schema}}.jobs WHERE id = ANY (ARRAY(SELECT unnest($1::bigint[])))
