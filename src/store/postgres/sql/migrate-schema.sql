-- The schema, created if missing.
CREATE SCHEMA IF NOT EXISTS {{schema}}
