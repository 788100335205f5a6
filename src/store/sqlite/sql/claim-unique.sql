-- The claimed state holds unique keys whose span is 'active' or longer
-- (records.ts UniqueSpan): a claim gives back the 'pending' and debounce keys
-- of the jobs it
-- leased (@ids, as in claim-lease.sql), in the same transaction. A statement
-- of its own, run only when claim-ready.sql saw such a job: in claim-lease.sql
-- every claimed row would pay for the unique index.
UPDATE jobs SET unique_key = NULL
WHERE id IN (SELECT value FROM json_each(@ids)) AND unique_span < {{span.active}} AND unique_key IS NOT NULL
