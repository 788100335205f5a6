/**
 * Retention's deletes on PostgreSQL (retention-purge.ts of the SQLite store):
 * finished jobs by age across names, one job name's jobs by its own age or
 * count, kept outcomes past their time, and the job names' own rules every
 * process's retention loop reads.
 */
import type { JobWrites } from '../store.js';
import { TRIM_WINDOW } from '../contract/job.js';
import type { Database } from './open.js';
import { statement } from './sql.js';

type RetentionStore = Pick<JobWrites, 'purgeFinished' | 'purgeNamed' | 'trimOutcomes' | 'saveNameRetention' | 'nameRetention'>;

export function createPostgresRetention(db: Pick<Database, 'rows' | 'query' | 'tx'>, schema: string): RetentionStore {
  const q = (name: string) => statement(name, schema);
  const s = {
    purgeFinished: q('purge-finished'),
    purgeNamed: q('purge-named'),
    byNameIndex: q('retention-by-name-index'),
    trimOutcomes: q('trim-outcomes'),
    saveRule: q('name-retention-save'),
    deleteRule: q('name-retention-delete'),
    rules: q('name-retention'),
  };
  /** The index of finished jobs by name, built once (retention by count, a name's own retention). */
  let byNameIndex: Promise<void> | undefined;
  const count = async (text: string, values: unknown[]) => Number((await db.rows<{ n: number }>(text, values))[0]!.n);
  return {
    purgeFinished: (state, before, limit, o = {}) => count(s.purgeFinished, [state, before, limit, o.except && o.except.length > 0 ? o.except : null, o.throttleAt ?? null, o.keepOutcomes === true]),
    async purgeNamed(rule, limit) {
      // Built on first use, without holding up writers (CONCURRENTLY: not in a transaction).
      byNameIndex ??= db.rows(s.byNameIndex).then(
        () => undefined,
        (err: unknown) => {
          byNameIndex = undefined;
          throw err;
        },
      );
      await byNameIndex;
      return count(s.purgeNamed, [rule.name, rule.state, rule.before ?? null, rule.keep ?? null, limit, rule.throttleAt ?? null, rule.keepOutcomes === true]);
    },
    trimOutcomes: (before, limit) => count(s.trimOutcomes, [before, limit, TRIM_WINDOW]),
    async saveNameRetention(rules, at) {
      await db.tx(async (client) => {
        for (const { name, rule } of rules) {
          if (rule === null) await client.query(s.deleteRule, [name]);
          else await client.query(s.saveRule, [name, rule, at]);
        }
      });
    },
    nameRetention: async () => db.rows<{ name: string; rule: string }>(s.rules),
  };
}
