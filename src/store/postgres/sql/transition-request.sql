-- The requests of a move of one job (transition-batch.sql's r, transition.ts
-- `one`): its values bound one by one, $1 … $19 in BATCH_COLUMNS' order, each
-- typed as the batch's arrays are, numbered as the batch's first request.
SELECT {{values}}, 1::bigint AS ord
