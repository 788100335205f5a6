/**
 * The sets of job-columns.ts as SQL text, filled into a statement when its
 * file is loaded (each store's sql.ts), so that no statement spells a set:
 *
 *   {{enqueued.columns}}     name, state, payload, …   what an enqueue writes
 *   {{enqueued.params}}      @name, @state, …          SQLite: named as NewJob's fields
 *   {{enqueued.params $6}}   $6::text, $7::text, …     PostgreSQL: from $6 on, each cast to its column's type
 *   {{enqueued.arrays $3}}   $3::text[], $4::text[], … PostgreSQL: from $3 on, one array a column, to unnest
 *   {{ready.columns}}        id, name, payload, …      what a claim reads
 *   {{ready.columns j}}      j.id, j.name, …           of the table aliased j
 *
 * A PostgreSQL statement numbers its own parameters first and the set's
 * after them, so its header stays true whatever the set holds. Migrations
 * spell their columns out: they run as they were shipped, and a level's text
 * never changes with the list.
 */
import { ENQUEUED_COLUMNS, ENQUEUED_FIELDS, JOB_COLUMNS, READY_COLUMNS } from './job-columns.js';
import type { NewJob } from './store.js';

const INCLUDE = /\{\{(enqueued|ready)\.(columns|params|arrays)(?: ([^}\s]+))?\}\}/g;

const typeOf = (column: string) => JOB_COLUMNS[column as keyof typeof JOB_COLUMNS].type;

/** `$n`'s number, or a bug in the file. */
function firstParameter(arg: string | undefined, include: string, file: string): number {
  const n = /^\$([1-9]\d*)$/.exec(arg ?? '');
  if (!n) throw new TypeError(`${file}: ${include} needs the number of its first parameter ($n)`);
  return Number(n[1]);
}

/** `{{set.form arg}}` as SQL text. */
function render(include: string, set: string, form: string, arg: string | undefined, file: string): string {
  const columns = set === 'enqueued' ? ENQUEUED_COLUMNS : READY_COLUMNS;
  if (form === 'columns') {
    if (arg !== undefined && !/^[a-z_]\w*$/.test(arg)) throw new TypeError(`${file}: ${include}: "${arg}" is no table alias`);
    return columns.map((c) => (arg === undefined ? c : `${arg}.${c}`)).join(', ');
  }
  if (set !== 'enqueued') throw new TypeError(`${file}: ${include}: the ready set is read, never bound`);
  if (form === 'params' && arg === undefined) return ENQUEUED_FIELDS.map((f) => `@${f}`).join(', ');
  const first = firstParameter(arg, include, file);
  const suffix = form === 'arrays' ? '[]' : '';
  return columns.map((c, i) => `$${first + i}::${typeOf(c)}${suffix}`).join(', ');
}

/** Fills in every `{{enqueued.…}}` and `{{ready.…}}` of a statement's text; a form it does not know is a bug in the file. */
export function fillColumns(text: string, file: string): string {
  return text.replace(INCLUDE, (include: string, set: string, form: string, arg: string | undefined) => render(include, set, form, arg, file));
}

/** Refuses a column set in a migration's text (see above). */
export function spelledOut(text: string, file: string): string {
  const include = text.match(INCLUDE);
  if (include) throw new TypeError(`${file}: ${include[0]} in a migration: a migration spells its columns out, as it was shipped`);
  return text;
}

/** A new job's enqueued values in the set's order (`{{enqueued.params $n}}`), absent ones null. */
export function enqueuedValues(job: NewJob): unknown[] {
  return ENQUEUED_FIELDS.map((f) => job[f] ?? null);
}

/** One array a column of the enqueued set, in its order (`{{enqueued.arrays $n}}`): the jobs' values, absent ones null. */
export function enqueuedArrays(jobs: readonly NewJob[]): unknown[][] {
  return ENQUEUED_FIELDS.map((f) => jobs.map((job) => job[f] ?? null));
}
