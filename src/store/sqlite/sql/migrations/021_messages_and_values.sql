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
-- Every message of a job, taken or not: what the trigger deletes with it (the partial indexes above cannot find them all).
CREATE INDEX job_messages_job ON job_messages (job_id);
CREATE TRIGGER job_messages_of_deleted_job AFTER DELETE ON jobs
BEGIN
  DELETE FROM job_messages WHERE job_id = old.id;
END;

-- Values a job publishes (ctx.publish): the latest per key, JSON text, read by
-- any process (queue.published); each publish is also a history row
-- ('job.publish', not a move) for the change feed. Deleted with the job.
CREATE TABLE job_values (
  job_id INTEGER NOT NULL,
  key    TEXT NOT NULL,
  value  TEXT NOT NULL,
  at     INTEGER NOT NULL,
  PRIMARY KEY (job_id, key)
) WITHOUT ROWID;
CREATE TRIGGER job_values_of_deleted_job AFTER DELETE ON jobs
BEGIN
  DELETE FROM job_values WHERE job_id = old.id;
END;
