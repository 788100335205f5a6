SELECT name FROM paused_names ORDER BY name
