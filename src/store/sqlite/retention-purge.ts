/**
 * Retention's deletes on a SQLite file: finished jobs by age across names,
 * one job name's jobs by its own age or count, and kept outcomes past their
 * time; and the job names' own rules every process's retention loop reads. Each call is one IMMEDIATE transaction of at most `limit` jobs (the
 * caller loops, yielding between them). The two indexes they walk exist only
 * once some queue asked for them: built on first use, outside the delete's
 * transaction, or at open (`ensureByAge`).
 */
import type Database from 'better-sqlite3';
import type { Clock } from '../../lib/clock.js';
import type { FinishedPurge, NamedPurge } from '../store.js';
import type { Purge } from './purge.js';
import { sql } from './sql.js';
import { TRIM_WINDOW } from '../contract/job.js';

export interface RetentionPurge {
  /** Builds the index of finished jobs by age now, if missing (a queue that deletes by age opens the file with it). */
  ensureByAge(): void;
  finished(state: string, before: number, limit: number, o?: FinishedPurge): number;
  named(rule: NamedPurge, limit: number): number;
  trimOutcomes(before: number, limit: number): number;
  saveNameRetention(rules: ReadonlyArray<{ name: string; rule: string | null }>, at: number): void;
  nameRetention(): Array<{ name: string; rule: string }>;
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
      byName = { before: db.prepare(sql('named-before')).pluck(), beyond: db.prepare(sql('named-beyond')) };
    }
    return byName;
  };

  const deleteTx = db.transaction((find: () => number[], keepOutcomes: boolean): number => {
    o.indexNewJobs();
    const ids = find();
    const run = o.purge.begin();
    if (keepOutcomes) run.finished(ids, o.clock.now());
    else run.jobs(ids, o.clock.now());
    run.finish();
    return ids.length;
  });
  /**
   * Every started queue passes every few seconds, mostly finding nothing: a read first, and the write
   * transaction (the file's one write lock) only when there is something to delete, found again inside it.
   */
  const deleteFound = (find: () => number[], keepOutcomes = false): number => (find().length === 0 ? 0 : deleteTx.immediate(find, keepOutcomes));
  const anyOldOutcome = db.prepare(sql('outcomes-old')).pluck();
  const rules = {
    save: db.prepare(sql('name-retention-save')),
    delete: db.prepare(sql('name-retention-delete')),
    all: db.prepare(sql('name-retention')),
  };
  const saveRulesTx = db.transaction((list: ReadonlyArray<{ name: string; rule: string | null }>, at: number) => {
    for (const { name, rule } of list) {
      if (rule === null) rules.delete.run({ name });
      else rules.save.run({ name, rule, at });
    }
  });
  const trimTx = db.transaction((before: number, limit: number) => o.purge.trimOutcomes(before, limit, o.clock.now()));

  return {
    ensureByAge: () => void ensureByAge(),
    finished(state, before, limit, terms = {}) {
      const find = ensureByAge();
      const { except } = terms;
      const names = except && except.length > 0 ? JSON.stringify(except) : null;
      const at = terms.throttleAt ?? o.clock.now();
      return deleteFound(() => find.all({ state, before, limit, except: names, throttleAt: at }) as number[], terms.keepOutcomes === true);
    },
    named(rule, limit) {
      const find = ensureByName();
      return deleteFound(() => {
        const { name, state } = rule;
        const throttleAt = rule.throttleAt ?? o.clock.now();
        const ids = rule.before === undefined ? [] : (find.before.all({ name, state, before: rule.before, limit, throttleAt }) as number[]);
        if (rule.keep === undefined || ids.length >= limit) return ids;
        const taken = new Set(ids);
        // A held job or a waiting parent's child counts among the newest, and stays.
        for (const row of find.beyond.all({ name, state, keep: rule.keep, limit, throttleAt }) as Array<{ id: number; spared: number }>) {
          if (row.spared === 0 && !taken.has(row.id) && ids.length < limit) ids.push(row.id);
        }
        return ids;
      }, rule.keepOutcomes === true);
    },
    trimOutcomes: (before, limit) => (anyOldOutcome.get({ before, limit: 1, window: TRIM_WINDOW }) === undefined ? 0 : trimTx.immediate(before, limit)),
    saveNameRetention: (list, at) => saveRulesTx.immediate(list, at),
    nameRetention: () => rules.all.all() as Array<{ name: string; rule: string }>,
  };
}
