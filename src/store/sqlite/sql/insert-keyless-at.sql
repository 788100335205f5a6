-- insert-keyless.sql with the id given (@id): a batch's first row when the
-- newest ids were deleted (next-id.sql).
INSERT INTO jobs (id, {{enqueued.columns}}, created_at, updated_at)
VALUES (@id, {{enqueued.params}}, @at, @at)
