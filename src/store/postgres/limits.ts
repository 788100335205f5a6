/**
 * The PostgreSQL store's limits table and group counts (migration
 * 004_groups_and_limits.sql): the SQLite store's limits-*.sql and
 * group-counts.sql, with the same semantics.
 */
import { toLimitRecord, type LimitRow } from '../limit-rows.js';
import type { GroupCount, LimitPause, LimitRecord } from '../store.js';
import type { Database } from './open.js';
import { statement } from './sql.js';

export function createPostgresLimits(db: Database, schema: string) {
  const q = (name: string) => statement(name, schema);
  const s = {
    pause: q('limits-pause'),
    pauses: q('limits-paused'),
    concurrency: q('limits-concurrency'),
    all: q('limits'),
    groupCounts: q('group-counts'),
    runningByName: q('claim-running-names'),
    saveNameLimits: q('name-limits-save'),
    deleteNameLimits: q('name-limits-delete'),
    nameLimits: q('name-limits'),
  };
  return {
    pauseLimit: async (kind: 'name' | 'group', key: string, until: number, at: number): Promise<void> => {
      await db.query(s.pause, [kind, key, until, at]);
    },
    pauses: async (now: number): Promise<LimitPause[]> =>
      (await db.rows<{ kind: 'name' | 'group'; key: string; until: number | string }>(s.pauses, [now])).map((r) => ({ ...r, until: Number(r.until) })),
    setGroupConcurrency: async (group: string, concurrency: number | null, at: number): Promise<void> => {
      await db.query(s.concurrency, [group, concurrency, at]);
    },
    saveNameLimits: async (name: string, rule: string | null, at: number): Promise<void> => {
      if (rule === null) await db.query(s.deleteNameLimits, [name]);
      else await db.query(s.saveNameLimits, [name, rule, at]);
    },
    nameLimits: async (): Promise<Array<{ name: string; rule: string }>> => db.rows(s.nameLimits),
    limits: async (): Promise<LimitRecord[]> => (await db.rows<LimitRow>(s.all)).map(toLimitRecord),
    groupCounts: async (limit: number): Promise<GroupCount[]> => db.rows<GroupCount>(s.groupCounts, [limit]),
    runningByName: async (names: readonly string[]): Promise<Array<{ name: string; n: number }>> => (names.length === 0 ? [] : db.rows(s.runningByName, [names])),
  };
}
