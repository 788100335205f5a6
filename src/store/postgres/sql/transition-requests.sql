-- The requests of a batch of moves (transition-batch.sql's r), one row each,
-- numbered in order (ord): the arrays unnested side by side, and after them
-- the columns bound once as a value for every request (transition.ts says
-- which, per batch).
SELECT u.*{{fixed}} FROM unnest({{arrays}}) WITH ORDINALITY AS u ({{columns}}, ord)
