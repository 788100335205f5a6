-- The running leases, by owner (leases.sql of the SQLite store; jobs_leased
-- is partial on processing).
SELECT id, name, lease_owner AS owner, locked_until AS "lockedUntil", progress_json AS progress, updated_at AS since
FROM {{schema}}.jobs WHERE state = {{processing}} ORDER BY lease_owner, id
