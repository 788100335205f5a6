-- Each job name's own retention (defineJob retention), as the processes that
-- define it last saved it (the SQLite store's migration 017): every
-- process's retention loop reads it, so a queue-wide age passes over names
-- with a rule of their own, and any started queue enforces a name's rule.
CREATE TABLE {{schema}}.name_retention (
  name       text COLLATE "C" PRIMARY KEY,
  rule       text   NOT NULL,
  updated_at bigint NOT NULL
);
