/**
 * The PostgreSQL store's SQL text: every statement names its tables as
 * `{{schema}}.jobs`, and states and unique spans as `{{pending}}`,
 * `{{span.active}}` … (sql-text.ts), filled in once per store.
 * Migrations are numbered files in sql/migrations/, copied beside the
 * compiled module by the build, as the SQLite store's are.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { ValidationError } from '../../errors.js';
import { fillNames } from '../sql-text.js';

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

/** Fills in `{{schema}}` (a quoted identifier), each `{{state}}` and `{{span.name}}` (sql-text.ts); an unknown name is a bug in the text. */
export function render(text: string, schema: string, file = 'SQL'): string {
  return fillNames(text, file, (name) => (name === 'schema' ? `"${checkSchema(schema)}"` : undefined));
}

/** Numbered migrations (`001_init.sql` …), in order, with their level, rendered for `schema`. */
export function migrations(schema: string): Array<{ level: number; name: string; text: string }> {
  return readdirSync(dir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort()
    .map((f) => ({ level: Number.parseInt(f, 10), name: f, text: render(readFileSync(new URL(f, dir), 'utf8'), schema, f) }));
}
