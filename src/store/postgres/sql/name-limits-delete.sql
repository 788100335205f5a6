-- A job name's limits back to its definitions': $1 name.
DELETE FROM {{schema}}.name_limits WHERE name = $1
