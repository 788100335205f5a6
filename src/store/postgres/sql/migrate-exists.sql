-- Whether the schema has litejobs' tables yet: $1 its queue_meta table's name.
SELECT to_regclass($1) AS t
