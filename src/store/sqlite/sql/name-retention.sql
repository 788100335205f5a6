-- Every job name's own retention rule (JSON), by name.
SELECT name, rule FROM name_retention ORDER BY name
