-- A job name's limits back to its definitions': @name.
DELETE FROM name_limits WHERE name = @name
