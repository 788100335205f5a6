-- Each job name's own retention (defineJob retention), as the processes that
-- define it last saved it: every process's retention loop reads it, so a
-- queue-wide age passes over names with a rule of their own (whichever
-- process runs them), and any started queue enforces a name's rule, on jobs
-- another process finished or cancelled too. `rule`: JSON, per finished
-- state { ageMs?, count? } (engine/core/retention.ts).
CREATE TABLE name_retention (
  name       TEXT PRIMARY KEY,
  rule       TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
