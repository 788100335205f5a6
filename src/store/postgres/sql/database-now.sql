-- The server's clock, ms since the epoch: the clock of the windows every
-- process shares (rate-limit tokens, pauses, throttle windows). The time of
-- this statement, not of its transaction's start (now()).
SELECT extract(epoch FROM clock_timestamp()) * 1000 AS now
