/**
 * How many job names an answer lists by name. A name is any string a caller
 * enqueued under, so a caller with the token could make up twenty thousand:
 * stats, `/metrics`, the OpenTelemetry gauges and the dashboard's live counts
 * list the queue's own names and those with the most jobs, up to this many,
 * and sum the rest under `OTHER_NAMES`; paused names are listed likewise.
 */
export const NAMES_LISTED = 100;

/** The name the rest are summed under (no job name of the HTTP API has parentheses). */
export const OTHER_NAMES = '(other)';

/**
 * The names listed by name when there are more than `max`: every one of
 * `own` (the queue's job names: the code bounds them), then the others with
 * the most jobs (`jobs` of each name; ties by name) up to `max` in all.
 * Undefined when there are `max` or fewer: every name is listed.
 */
export function listedNames(jobs: ReadonlyMap<string, number>, own: ReadonlySet<string> | undefined, max = NAMES_LISTED): ReadonlySet<string> | undefined {
  if (jobs.size <= max) return undefined;
  const mine = [...jobs.keys()].filter((name) => own?.has(name));
  const others = [...jobs].filter(([name]) => !own?.has(name)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return new Set([...mine, ...others.slice(0, Math.max(0, max - mine.length)).map(([name]) => name)]);
}
