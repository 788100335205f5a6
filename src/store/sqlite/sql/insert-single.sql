-- A keyless job committed on its own: outside the claim index until the next
-- claim indexes it (migration 003). Its id is above `indexed_upto`, which
-- every delete first moves past the ids it deletes, so an id is never handed
-- out twice even when the newest rows were deleted (SQLite would reuse them).
-- Its @group is null: insert.ts sends a grouped job through the batch.
INSERT INTO jobs (id, {{enqueued.columns}}, created_at, updated_at, indexed)
VALUES (
  max((SELECT coalesce(max(id), 0) FROM jobs), (SELECT value FROM queue_meta WHERE key = 'indexed_upto')) + 1,
  {{enqueued.params}}, @at, @at, 0
)
