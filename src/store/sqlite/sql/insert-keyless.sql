-- A job without an idempotency key inside a batch: no conflict to handle, the
-- id is SQLite's next rowid (next-id.sql says when the first row needs
-- insert-keyless-at.sql instead). insert-rows.ts repeats its VALUES row.
INSERT INTO jobs ({{enqueued.columns}}, created_at, updated_at)
VALUES ({{enqueued.params}}, @at, @at)
