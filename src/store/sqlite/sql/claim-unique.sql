-- The claimed state holds unique keys whose span is 'active' (2) or longer: a
-- claim gives back the 'pending' and debounce keys (span 1) of the jobs it
-- leased (@ids, as in claim-lease.sql), in the same transaction. A statement
-- of its own, run only when claim-ready.sql saw such a job: in claim-lease.sql
-- every claimed row would pay for the unique index.
UPDATE jobs SET unique_key = NULL
WHERE id IN (SELECT value FROM json_each(@ids)) AND unique_span < 2 AND unique_key IS NOT NULL
