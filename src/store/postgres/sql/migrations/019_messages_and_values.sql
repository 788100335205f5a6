-- Each job's mailbox (the SQLite store's migration 021): a message waits per
-- job and topic, in the order sent, until a waitFor of its job takes it
-- (taken_by: that wait's step); `key`: the sender's idempotency key. A job's
-- messages go with its row (ON DELETE CASCADE), by whichever path deletes it.
CREATE TABLE {{schema}}.job_messages (
  seq      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id   bigint NOT NULL REFERENCES {{schema}}.jobs (id) ON DELETE CASCADE,
  topic    text COLLATE "C" NOT NULL,
  data     text NOT NULL,
  key      text COLLATE "C",
  sent_at  bigint NOT NULL,
  taken_by text
);
CREATE INDEX job_messages_box ON {{schema}}.job_messages (job_id, topic, seq) WHERE taken_by IS NULL;
CREATE UNIQUE INDEX job_messages_key ON {{schema}}.job_messages (job_id, key) WHERE key IS NOT NULL;
-- Every message of a job, taken or not: what the cascade deletes with it (the partial indexes above cannot find them all).
CREATE INDEX job_messages_job ON {{schema}}.job_messages (job_id);

-- Values a job publishes (ctx.publish; the SQLite store's migration 021): the
-- latest per key, JSON text. Deleted with the job.
CREATE TABLE {{schema}}.job_values (
  job_id bigint NOT NULL REFERENCES {{schema}}.jobs (id) ON DELETE CASCADE,
  key    text COLLATE "C" NOT NULL,
  value  text NOT NULL,
  at     bigint NOT NULL,
  PRIMARY KEY (job_id, key)
);

-- JSON text as jsonb, or NULL when it is not JSON jsonb takes (a row edited by
-- hand): the dashboard's lists and payload searches read through it, so such
-- a row is shown and skipped instead of failing every read of its state.
CREATE FUNCTION {{schema}}.try_jsonb(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN t::jsonb;
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$;
