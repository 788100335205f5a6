-- Each job's mailbox (queue.signal, ctx.waitFor): a message waits here, per
-- job and topic in the order it was sent, until a waitFor of its job takes
-- it (deleted in the transaction that records it as the wait's step).
-- `data`: the message as JSON text. A job's messages go with its row, by
-- whichever path deletes it (the trigger).
CREATE TABLE job_messages (
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id  INTEGER NOT NULL,
  topic   TEXT NOT NULL,
  data    TEXT NOT NULL,
  sent_at INTEGER NOT NULL
);
CREATE INDEX job_messages_box ON job_messages (job_id, topic, seq);
CREATE TRIGGER job_messages_of_deleted_job AFTER DELETE ON jobs
BEGIN
  DELETE FROM job_messages WHERE job_id = old.id;
END;
