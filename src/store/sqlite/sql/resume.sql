-- Lifts a pause ('' for the whole queue).
DELETE FROM paused_names WHERE name = @name
