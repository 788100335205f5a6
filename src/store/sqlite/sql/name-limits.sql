-- Every job name's limits changed while the queue runs (JSON), by name.
SELECT name, rule FROM name_limits ORDER BY name
