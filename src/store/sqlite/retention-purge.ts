/**
 * Retention's deletes on a SQLite file: finished jobs by age across names,
 * one job name's jobs by its own age or count, and kept outcomes past their
 * time. Each call is one IMMEDIATE transaction of at most `limit` jobs (the
 * caller loops, yielding between them). The two indexes they walk exist only
 * once some queue asked for them: built on first use, outside the delete's
 * transaction, or at open (`ensure`).
 */
import type Database from 'better-sqlite3';
import type { Clock } from '../../lib/clock.js';
import type { NamedPurge } from '../store.js';
import type { Purge } from './purge.js';
import { sql } from './sql.js';

export interface RetentionPurge {
  /** Builds the index of finished jobs by age (`byAge`) or by name (`byName`) now, if missing. */
  ensure(which: 'byAge' | 'byName'): void;
  finished(state: string, before: number, limit: number, except?: readonly string[]): number;
  named(rule: NamedPurge, limit: number): number;
  trimOutcomes(before: number, limit: number): number;
}

export function createRetentionPurge(db: Database.Database, o: { purge: Purge; clock: Clock; indexNewJobs: () => void }): RetentionPurge {
  let byAge: Database.Statement | undefined;
  let byName: { before: Database.Statement; beyond: Database.Statement } | undefined;
  const ensureByAge = (): Database.Statement => {
    if (!byAge) {
      db.transaction(() => db.exec(sql('retention-index'))).immediate();
      byAge = db.prepare(sql('finished-before')).pluck();
    }
    return byAge;
  };
  const ensureByName = () => {
    if (!byName) {
      db.transaction(() => db.exec(sql('retention-by-name-index'))).immediate();
      byName = { before: db.prepare(sql('named-before')).pluck(), beyond: db.prepare(sql('named-beyond')).pluck() };
    }
    return byName;
  };

  const deleteTx = db.transaction((find: () => number[]): number => {
    o.indexNewJobs();
    const ids = find();
    const run = o.purge.begin();
    run.jobs(ids, o.clock.now());
    run.finish();
    return ids.length;
  });
  const trimTx = db.transaction((before: number, limit: number) => o.purge.trimOutcomes(before, limit, o.clock.now()));

  return {
    ensure: (which) => void (which === 'byAge' ? ensureByAge() : ensureByName()),
    finished(state, before, limit, except) {
      const find = ensureByAge();
      const names = except && except.length > 0 ? JSON.stringify(except) : null;
      return deleteTx.immediate(() => find.all({ state, before, limit, except: names }) as number[]);
    },
    named(rule, limit) {
      const find = ensureByName();
      return deleteTx.immediate(() => {
        const { name, state } = rule;
        const ids = rule.before === undefined ? [] : (find.before.all({ name, state, before: rule.before, limit }) as number[]);
        if (rule.keep === undefined || ids.length >= limit) return ids;
        const taken = new Set(ids);
        for (const id of find.beyond.all({ name, state, keep: rule.keep, limit }) as number[]) if (!taken.has(id) && ids.length < limit) ids.push(id);
        return ids;
      });
    },
    trimOutcomes: (before, limit) => trimTx.immediate(before, limit),
  };
}
