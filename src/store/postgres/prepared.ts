/**
 * Statements with parameters go to the server as named prepared statements:
 * each connection parses and plans one the first time and reuses it after.
 * An unnamed statement is parsed and planned on every call, which cost more
 * than running the store's usual statements (measured on the local server:
 * the enqueue's insert 0.53 ms unnamed, 0.34 ms named). Deployments behind
 * a pooler need one that keeps sessions (docs/guides/scaling.md). The server keeps a
 * custom plan per call while it is cheaper than the generic one (its plan
 * cache decides), and re-plans when a migration changes a table.
 *
 * Texts without parameters (BEGIN, several statements with their values
 * written in) are sent as they are: the extended protocol takes one
 * statement at a time.
 */
import { createHash } from 'node:crypto';
import type { Queryable, QueryResult } from './driver.js';

/**
 * Names by text. A text is named from its third use, so that statements
 * built per call (a search's conditions, a listing's filters) are not kept
 * by every connection: each prepared statement holds server memory for the
 * connection's life. At most NAMES_MAX names in all (a queue uses a few
 * dozen statements over and over); past that, texts go unnamed.
 */
const names = new Map<string, string>();
const NAMES_MAX = 200;
/** Uses of texts not named yet, forgotten all at once when USES_MAX texts are counted. */
const uses = new Map<string, number>();
const USES_MAX = 2000;
const NAMED_FROM_USE = 3;
/** Part of every name: a new generation prepares every statement again, on every connection. */
let generation = 0;

function nameOf(text: string): string | undefined {
  const known = names.get(text);
  if (known !== undefined || names.size >= NAMES_MAX) return known;
  const used = (uses.get(text) ?? 0) + 1;
  if (used < NAMED_FROM_USE) {
    if (uses.size >= USES_MAX) uses.clear();
    uses.set(text, used);
    return undefined;
  }
  uses.delete(text);
  const name = `lj${generation}_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
  names.set(text, name);
  return name;
}

/**
 * A prepared statement whose result columns changed under it: another
 * process (a newer litejobs) migrated a table that `SELECT *` reads. The
 * server refuses to run it before it writes anything, so the call can be
 * made again, under new names.
 */
export function isStalePlan(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; routine?: unknown } | null;
  // The routine that raises it names it whatever the server's message language.
  return e?.code === '0A000' && (e.routine === 'RevalidateCachedQuery' || (typeof e.message === 'string' && e.message.includes('cached plan must not change result type')));
}

/** Names every statement anew (after isStalePlan): the old prepared ones are left unused. */
export function prepareAgain(): void {
  generation++;
  names.clear();
  uses.clear();
}

/** The pg query config for `text` and `values`: named when it has parameters. */
export function toQuery(text: string, values?: readonly unknown[]): string | { name: string; text: string; values: unknown[] } {
  if (values === undefined || values.length === 0) return text;
  const name = nameOf(text);
  return name === undefined ? text : { name, text, values: values as unknown[] };
}

/** `q`, sending statements with parameters as prepared ones. */
export function preparing<Q extends Queryable>(q: Q): Queryable {
  return {
    query: <R>(text: string, values?: readonly unknown[]) => {
      const config = toQuery(text, values);
      return (typeof config === 'string' ? q.query<R>(text, values) : (q.query as (c: unknown) => Promise<QueryResult<R>>)(config));
    },
  };
}
