-- A schedule's version moves on with every change of its definition, and
-- its floor is the last slot fired when it last changed (the SQLite store's
-- migration 015): a firing pass writes only while the schedule is at the
-- version it read, and no process fires a slot at or before the floor.
ALTER TABLE {{schema}}.schedules ADD COLUMN version integer NOT NULL DEFAULT 0;
ALTER TABLE {{schema}}.schedules ADD COLUMN floor_slot bigint;
