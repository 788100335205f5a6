DELETE FROM paused_names WHERE name = @name
