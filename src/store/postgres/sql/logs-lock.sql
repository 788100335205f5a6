-- Locks the rows of the jobs an append writes lines for, in id order (two
-- appends never wait on each other in a cycle): $1 job ids. The append
-- (append-logs.sql) then numbers each job's lines after the stored ones in a
-- statement of its own: under READ COMMITTED it sees the lines another
-- process appended to the same job before this lock was taken.
SELECT id FROM {{schema}}.jobs WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE
