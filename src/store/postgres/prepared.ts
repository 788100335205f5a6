/**
 * Statements with parameters go to the server as named prepared statements:
 * each connection parses and plans one the first time and reuses it after.
 * An unnamed statement is parsed and planned on every call, which costs
 * more than running the store's usual statements (the enqueue's insert
 * takes about half again as long unnamed). The server keeps a
 * custom plan per call while it is cheaper than the generic one (its plan
 * cache decides), and re-plans when a migration changes a table.
 * Deployments behind a pooler need one that keeps sessions
 * (docs/guides/scaling.md).
 *
 * The names belong to one store's pool, whose connections hold the prepared
 * statements and end with it. A text is named from its third use, so that
 * statements built per call (a search's conditions) are not kept by every
 * connection, and at most PREPARED_MAX texts are named: each prepared
 * statement holds server memory for its connection's life. A queue uses a few
 * dozen statements over and over, named in its first seconds.
 *
 * Texts without parameters (BEGIN, several statements with their values
 * written in) are sent as they are: the extended protocol takes one
 * statement at a time.
 *
 * A statement whose text opens with PLANNED_PER_CALL is never named: the
 * server plans it for each call, with its values. Those are the statements
 * that find jobs by an array of ids. A named one keeps, for the life of the
 * connection, the generic plan it settled on after a few calls: made while
 * the table held a few rows, that plan read the whole table for every call
 * once a burst had filled it (until the table was analyzed), where a plan
 * made with the values reads the primary key.
 */
import { createHash } from 'node:crypto';
import type { Queryable, QueryResult } from './driver.js';

/** The opening of a statement's text that keeps it from being named (sql/*.sql). */
export const PLANNED_PER_CALL = '/* planned per call */';

/** Texts named per pool at most. */
export const PREPARED_MAX = 100;
/** Uses of texts not named yet: forgotten all at once when this many are counted. */
const USES_MAX = 2000;
const NAMED_FROM_USE = 3;

export interface PreparedStatements {
  /** `q` (the pool, or one of its connections), sending statements with parameters as prepared ones. */
  wrap(q: Queryable): Queryable;
  /** Names every statement anew (after isStalePlan): the old prepared ones are left unused. */
  again(): void;
}

export function preparedStatements(): PreparedStatements {
  const names = new Map<string, string>();
  const uses = new Map<string, number>();
  /** Part of every name: a new generation prepares every statement again, on every connection. */
  let generation = 0;

  const nameOf = (text: string): string | undefined => {
    if (text.startsWith(PLANNED_PER_CALL)) return undefined;
    const known = names.get(text);
    if (known !== undefined || names.size >= PREPARED_MAX) return known;
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
  };

  return {
    wrap: (q) => ({
      query: <R>(text: string, values?: readonly unknown[]) => {
        const name = values === undefined || values.length === 0 ? undefined : nameOf(text);
        return name === undefined ? q.query<R>(text, values) : (q.query as (config: unknown) => Promise<QueryResult<R>>)({ name, text, values });
      },
    }),
    again() {
      generation++;
      names.clear();
      uses.clear();
    },
  };
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
