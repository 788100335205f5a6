-- The paused names, '' for the whole queue.
SELECT name FROM paused_names ORDER BY name
