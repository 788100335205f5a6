-- Each job's mailbox (queue.signal, ctx.waitFor): a message waits here, per
-- job and topic in the order it was sent, until a waitFor of its job takes
-- it (`taken_by`: that wait's step, set in the transaction that records the
-- step with it). `data`: the message as JSON text. `key`: the sender's
-- idempotency key (a hook's delivery id): a message sent again under it is
-- the same message, taken or not. A job's messages go with its row, by
-- whichever path deletes it (the trigger).
CREATE TABLE job_messages (
  seq      INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id   INTEGER NOT NULL,
  topic    TEXT NOT NULL,
  data     TEXT NOT NULL,
  key      TEXT,
  sent_at  INTEGER NOT NULL,
  taken_by TEXT
);
CREATE INDEX job_messages_box ON job_messages (job_id, topic, seq) WHERE taken_by IS NULL;
CREATE UNIQUE INDEX job_messages_key ON job_messages (job_id, key) WHERE key IS NOT NULL;
CREATE TRIGGER job_messages_of_deleted_job AFTER DELETE ON jobs
BEGIN
  DELETE FROM job_messages WHERE job_id = old.id;
END;
