/**
 * The PostgreSQL store's SQL text: every statement names its tables as
 * `{{schema}}.jobs`, and states and unique spans as `{{pending}}`,
 * `{{span.active}}` … (sql-text.ts), filled in once per store; the job's
 * column sets are includes (`{{enqueued.columns}}`, `{{ready.columns}}`:
 * job-column-sql.ts), filled in once per process.
 * Migrations are numbered files in sql/migrations/, copied beside the
 * compiled module by the build, as the SQLite store's are.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { ValidationError } from '../../errors.js';
import { fillColumns, spelledOut } from '../job-column-sql.js';
import { fillNames } from '../sql-text.js';

const statementsDir = new URL('./sql/', import.meta.url);
const dir = new URL('./sql/migrations/', import.meta.url);

/** A schema name: lower case, so that quoting it changes nothing a person would type unquoted. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function checkSchema(name: string): string {
  if (typeof name !== 'string' || !SCHEMA_NAME.test(name)) {
    throw new ValidationError(`schema: "${String(name)}" is not a schema name litejobs uses (lower-case letters, digits and _, at most 63, not starting with a digit)`);
  }
  return name;
}

/**
 * A value written into SQL text, for the few statements sent in the simple
 * protocol (which binds no parameters). Strings are escape-string constants
 * (`E'…'`, backslashes and quotes doubled), read the same whatever
 * standard_conforming_strings says; a safe integer is a number; anything
 * else a number would be is a quoted string, which the column's type then
 * refuses as it would refuse the bound value.
 */
export function literal(value: string | number | readonly string[]): string {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : literal(String(value));
  if (typeof value === 'string') return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  return `ARRAY[${value.map((v) => literal(v)).join(', ')}]::text[]`;
}

/**
 * Fills in `{{schema}}` (a quoted identifier), each `{{state}}` and
 * `{{span.name}}` (sql-text.ts), and the fragments a statement's code builds
 * (`parts`: `{{where}}` …); an unknown name is a bug in the text. A part is
 * put in as it is, never read for names again: it may hold values written
 * in as literals (a job name that looks like a placeholder stays a name).
 */
export function render(text: string, schema: string, file = 'SQL', parts: Readonly<Record<string, string>> = {}): string {
  return fillNames(text, file, (name) => (name === 'schema' ? `"${checkSchema(schema)}"` : Object.hasOwn(parts, name) ? parts[name] : undefined));
}

const files = new Map<string, string>();

/**
 * The text of sql/<name>.sql without its header (the comment lines it opens
 * with: what the server need not be sent on every call), its column sets
 * filled in, read once per process.
 */
export function sqlFile(name: string): string {
  let text = files.get(name);
  if (text === undefined) {
    text = fillColumns(readFileSync(new URL(`${name}.sql`, statementsDir), 'utf8').replace(/^(?:--[^\n]*\n|\s*\n)*/, '').trimEnd(), `${name}.sql`);
    files.set(name, text);
  }
  return text;
}

/**
 * The statement in sql/<name>.sql for `schema`, its names filled in, and the
 * fragments its code builds (`parts`). Every statement of the store lives in
 * such a file, with a header that says what it does, what its parameters
 * are, and why it is shaped so.
 */
export function statement(name: string, schema: string, parts?: Readonly<Record<string, string>>): string {
  return render(sqlFile(name), schema, `${name}.sql`, parts);
}

/** Numbered migrations (`001_init.sql` …), in order, with their level, rendered for `schema`. */
/** The level of the last migration this version has (its files' numbers), without reading them. */
export function latestMigration(): number {
  return Math.max(0, ...readdirSync(dir).filter((f) => /^\d+_.*\.sql$/.test(f)).map((f) => Number.parseInt(f, 10)));
}

export function migrations(schema: string): Array<{ level: number; name: string; text: string }> {
  return readdirSync(dir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort()
    .map((f) => ({ level: Number.parseInt(f, 10), name: f, text: render(spelledOut(readFileSync(new URL(f, dir), 'utf8'), f), schema, f) }));
}
