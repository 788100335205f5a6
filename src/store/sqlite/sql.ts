/**
 * Loads the SQL of each store statement from its own file (`claim-ready.sql`, `transition.sql` …).
 * The build copies `sql/` beside the compiled module, so the same relative
 * URL works from `src/` (tests) and `dist/` (the package).
 *
 * A file writes states and unique spans by name (`{{pending}}`,
 * `{{span.active}}`), filled in as the PostgreSQL store's are (sql-text.ts),
 * and the job's column sets as includes (`{{enqueued.columns}}`,
 * `{{ready.columns}}`: job-column-sql.ts).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fillColumns, spelledOut } from '../job-column-sql.js';
import { fillNames } from '../sql-text.js';

const dir = new URL('./sql/', import.meta.url);

/** Fills in each `{{state}}` and `{{span.name}}` (sql-text.ts); an unknown name is a bug in the file. */
export const withStates = (text: string, file: string): string => fillNames(text, file);

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

/** The statement in sql/<name>.sql, its column sets and names filled in, and the fragments its code builds (`parts`: `{{set}}` …). */
export function sql(name: string, parts: Readonly<Record<string, string>> = {}): string {
  const file = `${name}.sql`;
  return fillNames(fillColumns(readFileSync(new URL(file, dir), 'utf8'), file), file, (part) => (Object.hasOwn(parts, part) ? parts[part] : undefined));
}

/** Numbered migrations (`001_init.sql` …), in order, with their level. */
export function migrations(): Array<{ level: number; name: string; text: string }> {
  const migrationsDir = new URL('migrations/', dir);
  return readdirSync(migrationsDir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort()
    .map((f) => ({ level: Number.parseInt(f, 10), name: f, text: withStates(spelledOut(readFileSync(new URL(f, migrationsDir), 'utf8'), f), f) }));
}
