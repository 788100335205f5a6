-- A job name defined without a retention of its own: the queue's applies to it again. $1 name.
DELETE FROM {{schema}}.name_retention WHERE name = $1
