/** The SQLite store's limits table and group counts (see sql/migrations/008_groups_and_limits.sql). */
import type Database from 'better-sqlite3';
import { toLimitRecord, type LimitRow } from '../limit-rows.js';
import type { GroupCount, LimitPause, LimitRecord } from '../store.js';
import { namesStatement } from './names-statement.js';
import { sql } from './sql.js';

export interface SqliteLimits {
  pause(kind: 'name' | 'group', key: string, until: number, at: number): void;
  pauses(now: number): LimitPause[];
  setGroupConcurrency(group: string, concurrency: number | null, at: number): void;
  saveNameLimits(name: string, rule: string | null, at: number): void;
  nameLimits(): Array<{ name: string; rule: string }>;
  all(): LimitRecord[];
  groupCounts(limit: number): GroupCount[];
  runningByName(names: readonly string[]): Array<{ name: string; n: number }>;
}

export function createSqliteLimits(db: Database.Database): SqliteLimits {
  const s = {
    pause: db.prepare(sql('limits-pause')),
    pauses: db.prepare(sql('limits-paused')),
    concurrency: db.prepare(sql('limits-concurrency')),
    all: db.prepare(sql('limits')),
    groupCounts: db.prepare(sql('group-counts')),
    runningByName: namesStatement(db, sql('claim-running-names')),
    saveNameLimits: db.prepare(sql('name-limits-save')),
    deleteNameLimits: db.prepare(sql('name-limits-delete')),
    nameLimits: db.prepare(sql('name-limits')),
  };
  return {
    pause: (kind, key, until, at) => {
      s.pause.run({ kind, key, until, now: at });
    },
    pauses: (now) => s.pauses.all({ now }) as LimitPause[],
    setGroupConcurrency: (group, concurrency, at) => {
      s.concurrency.run({ key: group, concurrency, now: at });
    },
    saveNameLimits: (name, rule, at) => {
      if (rule === null) s.deleteNameLimits.run({ name });
      else s.saveNameLimits.run({ name, rule, at });
    },
    nameLimits: () => s.nameLimits.all() as Array<{ name: string; rule: string }>,
    all: () => (s.all.all() as LimitRow[]).map(toLimitRecord),
    groupCounts: (limit) => s.groupCounts.all({ limit }) as GroupCount[],
    runningByName: (names) => (names.length === 0 ? [] : (s.runningByName.all(names, {}) as Array<{ name: string; n: number }>)),
  };
}
