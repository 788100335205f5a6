/**
 * The dashboard's payload search (src/store/where.ts) compiled to PostgreSQL,
 * with the SQLite store's semantics (browse-jobs.ts, json_extract):
 *
 * - A field that is missing or JSON null equals `null`, and nothing else;
 *   `!=` matches it for every other value.
 * - Numbers compare as numbers; `true`/`false` count as 1/0 against a number.
 * - Against a string, every number (and boolean) sorts below every string; a
 *   string, object or array compares as its text, bytewise.
 * - `~` looks for the text (case folded, non-ASCII capitals too, by the
 *   database's collation) in the field's text (1/0 for booleans).
 * - `= true` matches only the JSON value true, not the number 1.
 */
import type { WhereClause } from '../where.js';

const NULL_MATCHES = (op: string) => (op === '!=' ? 'true' : 'false');
/** What SQLite says of a number (or boolean) compared with a string: numbers sort first. */
const NUMBER_VS_STRING: Record<string, string> = { '=': 'false', '!=': 'true', '<': 'true', '<=': 'true', '>': 'false', '>=': 'false' };
/** And of a string (or object, array) compared with a number. */
const STRING_VS_NUMBER: Record<string, string> = { '=': 'false', '!=': 'true', '<': 'false', '<=': 'false', '>': 'true', '>=': 'true' };
const SQL_OP: Record<string, string> = { '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

/**
 * The search as one SQL condition over `doc` (the payload as jsonb: an expression, null for text that is not JSON),
 * with its parameters named `@p0`, `@w0` … (bound by the caller).
 */
export function compileWhere(clauses: readonly WhereClause[], doc: string): { sql: string; params: Record<string, unknown> } {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  clauses.forEach((clause, i) => {
    params[`p${i}`] = clause.path;
    const f = `(${doc} #> @p${i}::text[])`;
    const type = `jsonb_typeof(${f})`;
    const isNull = `(${f} IS NULL OR ${type} = 'null')`;
    const { op, value } = clause;
    if (value === null) {
      parts.push(op === '=' ? isNull : `NOT ${isNull}`);
    } else if (typeof value === 'boolean') {
      params[`w${i}`] = value ? 'true' : 'false';
      parts.push(`${f} ${op === '=' ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM'} @w${i}::jsonb`);
    } else if (op === '~') {
      params[`w${i}`] = String(value).toLowerCase();
      const text = `(CASE ${type} WHEN 'boolean' THEN (CASE WHEN ${f} = 'true'::jsonb THEN '1' ELSE '0' END) ELSE ${f} #>> '{}' END)`;
      // lower() under the database's own collation folds non-ASCII capitals too (É → é), as the value was folded.
      parts.push(`coalesce(strpos(lower(${text}), @w${i}::text) > 0, false)`);
    } else if (typeof value === 'number') {
      params[`w${i}`] = value;
      parts.push(`(CASE WHEN ${isNull} THEN ${NULL_MATCHES(op)}
        WHEN ${type} = 'number' THEN (${f} #>> '{}')::numeric ${SQL_OP[op]} @w${i}::numeric
        WHEN ${type} = 'boolean' THEN (CASE WHEN ${f} = 'true'::jsonb THEN 1 ELSE 0 END) ${SQL_OP[op]} @w${i}::numeric
        ELSE ${STRING_VS_NUMBER[op]} END)`);
    } else {
      params[`w${i}`] = value;
      parts.push(`(CASE WHEN ${isNull} THEN ${NULL_MATCHES(op)}
        WHEN ${type} IN ('number', 'boolean') THEN ${NUMBER_VS_STRING[op]}
        ELSE (${f} #>> '{}') COLLATE "C" ${SQL_OP[op]} @w${i}::text END)`);
    }
  });
  return { sql: parts.join(' AND '), params };
}

/** Turns `@name` parameters into `$1 …` with their values, in order of first use. */
export function bindNamed(text: string, params: Record<string, unknown>): [string, unknown[]] {
  const order: string[] = [];
  const sql = text.replace(/@([A-Za-z_]\w*)/g, (_, name: string) => {
    if (!(name in params)) throw new TypeError(`parameter @${name} is not bound`);
    let at = order.indexOf(name);
    if (at < 0) at = order.push(name) - 1;
    return `$${at + 1}`;
  });
  return [sql, order.map((name) => params[name])];
}
