/**
 * How many job names an answer lists by name. A name is any string a caller
 * enqueued under, so a caller with the token could make up twenty thousand:
 * stats, `/metrics`, the OpenTelemetry gauges and the dashboard's live counts
 * list the queue's own names and those with the most jobs, up to this many,
 * and sum the rest under `OTHER_NAMES`.
 */
export const NAMES_LISTED = 100;

/** The name the rest are summed under (no job name of the HTTP API has parentheses). */
export const OTHER_NAMES = '(other)';
