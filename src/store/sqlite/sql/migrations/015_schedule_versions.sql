-- A schedule's version moves on with every change of its definition (cron,
-- zone, payload, missed policy), and its floor is the last slot fired when
-- it last changed. A firing pass writes only while the schedule is at the
-- version it read (a schedule changed and changed back is still a change,
-- where comparing the definition would see none), and no process fires a
-- slot at or before the floor: a change keeps the past from being fired
-- again, whatever slot a process that ran before it last handled.
ALTER TABLE schedules ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE schedules ADD COLUMN floor_slot INTEGER;
