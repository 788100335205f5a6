-- The change listener's subscription (notify.ts): the schema's channel, a
-- checked schema name, written in as an identifier (LISTEN binds nothing).
LISTEN "{{channel}}"
