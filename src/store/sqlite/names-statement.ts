/** Statements that filter on the queue's job names (claims, the lease sweeper). */
import type Database from 'better-sqlite3';

/**
 * A statement whose `:names` list is bound as separate parameters,
 * `name IN (@n0, @n1, …)`: cheaper per claimed row than expanding a JSON
 * array with json_each. One prepared statement per list length.
 */
export function namesStatement(db: Database.Database, text: string) {
  const byCount = new Map<number, Database.Statement>();
  const marker = '(SELECT value FROM json_each(@names))';
  if (!text.includes(marker)) throw new TypeError('statement has no @names list');
  return {
    all(names: readonly string[], params: Record<string, unknown>): unknown[] {
      let st = byCount.get(names.length);
      if (!st) {
        const list = names.map((_, i) => `@n${i}`).join(', ');
        st = db.prepare(text.replaceAll(marker, `(${list})`));
        byCount.set(names.length, st);
      }
      const bound: Record<string, unknown> = { ...params };
      for (let i = 0; i < names.length; i++) bound[`n${i}`] = names[i];
      return st.all(bound);
    },
  };
}
