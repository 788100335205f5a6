-- Schedules become job schedulers (the SQLite store's migration 018): several
-- per job name, each by an id (the job name for those made before), by a
-- cron expression or a fixed interval, between a start and an end, at most
-- `run_limit` slots (`fired` counts them), the first at once with `immediately`.
ALTER TABLE {{schema}}.schedules ADD COLUMN id text COLLATE "C";
UPDATE {{schema}}.schedules SET id = name;
ALTER TABLE {{schema}}.schedules ALTER COLUMN id SET NOT NULL;
ALTER TABLE {{schema}}.schedules DROP CONSTRAINT schedules_pkey;
ALTER TABLE {{schema}}.schedules ADD PRIMARY KEY (id);
ALTER TABLE {{schema}}.schedules ALTER COLUMN cron DROP NOT NULL;
ALTER TABLE {{schema}}.schedules ADD COLUMN every_ms bigint, ADD COLUMN start_at bigint, ADD COLUMN end_at bigint,
  ADD COLUMN run_limit integer, ADD COLUMN immediately boolean NOT NULL DEFAULT false, ADD COLUMN fired integer NOT NULL DEFAULT 0;
