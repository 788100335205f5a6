-- Every job name's limits changed while the queue runs (JSON), by name.
SELECT name, rule FROM {{schema}}.name_limits ORDER BY name
