-- A job name defined without a retention of its own: the queue's applies to it again.
DELETE FROM name_retention WHERE name = @name
