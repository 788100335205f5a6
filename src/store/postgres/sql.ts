/**
 * The PostgreSQL store's SQL text: every statement names its tables as
 * `{{schema}}.jobs`, and states as `{{pending}}` …, filled in once per store.
 * States stay literals, as in the SQLite store: a partial index (WHERE state
 * = 'pending') is only used when the planner can see the state matches it.
 * Migrations are numbered files in sql/migrations/, copied beside the
 * compiled module by the build, as the SQLite store's are.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { JobState } from '../../../machines/job.machine.js';
import { ValidationError } from '../../errors.js';

const dir = new URL('./sql/migrations/', import.meta.url);

/** A schema name: lower case, so that quoting it changes nothing a person would type unquoted. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function checkSchema(name: string): string {
  if (typeof name !== 'string' || !SCHEMA_NAME.test(name)) {
    throw new ValidationError(`schema: "${String(name)}" is not a schema name litejobs uses (lower-case letters, digits and _, at most 63, not starting with a digit)`);
  }
  return name;
}

const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

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

/** Fills in `{{schema}}` (a quoted identifier) and each `{{state}}` (a quoted literal); an unknown name is a bug in the text. */
export function render(text: string, schema: string): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (name === 'schema') return `"${checkSchema(schema)}"`;
    const state = (JobState as Record<string, string>)[name];
    if (state === undefined) throw new TypeError(`{{${name}}} is neither the schema nor a job state`);
    return quoteLiteral(state);
  });
}

/** Numbered migrations (`001_init.sql` …), in order, with their level, rendered for `schema`. */
export function migrations(schema: string): Array<{ level: number; name: string; text: string }> {
  return readdirSync(dir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort()
    .map((f) => ({ level: Number.parseInt(f, 10), name: f, text: render(readFileSync(new URL(f, dir), 'utf8'), schema) }));
}
