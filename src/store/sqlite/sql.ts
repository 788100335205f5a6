/**
 * Loads the SQL of each store statement from its own file (`claim-ready.sql`, `transition.sql` …).
 * The build copies `sql/` beside the compiled module, so the same relative
 * URL works from `src/` (tests) and `dist/` (the package).
 *
 * State names are never spelled in SQL: a file writes `{{pending}}`, and the
 * loader puts in the quoted name from the job machine's constants. They stay
 * literals (not bound parameters) so that SQLite can match the partial
 * indexes, whose conditions name states.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { JobState } from '../../../machines/job.machine.js';

const dir = new URL('./sql/', import.meta.url);

/** Replaces each `{{state}}` with the quoted state name; an unknown name is a bug in the file. */
export function withStates(text: string, file: string): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const state = (JobState as Record<string, string>)[name];
    if (state === undefined) throw new TypeError(`${file}: {{${name}}} is not a job state`);
    return quote(state);
  });
}

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** Fills in a claim rule's `{{claim.from}}`, `{{claim.to}}`, `{{claim.attempts}}` and `{{claim.event}}` as literals. */
export function withClaimRule(text: string, rule: { from: string; to: string; attempts: number; event: string }): string {
  if (!Number.isSafeInteger(rule.attempts)) throw new TypeError(`claim rule attempts must be an integer, got ${rule.attempts}`);
  return text
    .replaceAll('{{claim.from}}', quote(rule.from))
    .replaceAll('{{claim.to}}', quote(rule.to))
    .replaceAll('{{claim.attempts}}', String(rule.attempts))
    .replaceAll('{{claim.event}}', quote(rule.event));
}

export function sql(name: string): string {
  return withStates(readFileSync(new URL(`${name}.sql`, dir), 'utf8'), `${name}.sql`);
}

/** Numbered migrations (`001_init.sql` …), in order, with their level. */
export function migrations(): Array<{ level: number; name: string; text: string }> {
  const migrationsDir = new URL('migrations/', dir);
  return readdirSync(migrationsDir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort()
    .map((f) => ({ level: Number.parseInt(f, 10), name: f, text: withStates(readFileSync(new URL(f, migrationsDir), 'utf8'), f) }));
}
