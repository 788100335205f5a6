/**
 * The PostgreSQL store's limits table and group counts (migration
 * 004_groups_and_limits.sql): the SQLite store's limits-*.sql and
 * group-counts.sql, with the same semantics.
 */
import { toLimitRecord, type LimitRow } from '../limit-rows.js';
import type { GroupCount, LimitPause, LimitRecord } from '../store.js';
import type { Database } from './connect.js';
import { render } from './sql.js';

export function createPostgresLimits(db: Database, schema: string) {
  const q = (text: string) => render(text, schema);
  const s = {
    // limits-pause.sql: a later pause already set stays.
    pause: q(`INSERT INTO {{schema}}.job_limits AS l (kind, key, paused_until, updated_at) VALUES ($1, $2, $3, $4)
      ON CONFLICT (kind, key) DO UPDATE SET paused_until = greatest(coalesce(l.paused_until, 0), excluded.paused_until), updated_at = excluded.updated_at`),
    // limits-paused.sql
    pauses: q(`SELECT kind, key, paused_until AS "until" FROM {{schema}}.job_limits WHERE kind IN ('name', 'group') AND paused_until > $1`),
    // limits-concurrency.sql
    concurrency: q(`INSERT INTO {{schema}}.job_limits (kind, key, concurrency, updated_at) VALUES ('group', $1, $2, $3)
      ON CONFLICT (kind, key) DO UPDATE SET concurrency = excluded.concurrency, updated_at = excluded.updated_at`),
    // limits.sql
    all: q('SELECT kind, key, concurrency, spent, paused_until, updated_at FROM {{schema}}.job_limits ORDER BY kind, key'),
    // group-counts.sql: reads every pending or leased grouped job; for the dashboard and `litejobs limits`, not a hot path.
    groupCounts: q(`SELECT group_key AS "group",
        count(*) FILTER (WHERE state = {{pending}})::int AS pending,
        count(*) FILTER (WHERE state = {{processing}})::int AS running
      FROM {{schema}}.jobs
      WHERE group_key IS NOT NULL AND (state = {{pending}} OR state = {{processing}})
      GROUP BY group_key
      ORDER BY running DESC, pending DESC, group_key
      LIMIT $1`),
    // claim-running-names.sql: along jobs_leased.
    runningByName: q(`SELECT name, count(*)::int AS n FROM {{schema}}.jobs WHERE state = {{processing}} AND name = ANY ($1::text[]) GROUP BY name`),
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
    limits: async (): Promise<LimitRecord[]> => (await db.rows<LimitRow>(s.all)).map(toLimitRecord),
    groupCounts: async (limit: number): Promise<GroupCount[]> => db.rows<GroupCount>(s.groupCounts, [limit]),
    runningByName: async (names: readonly string[]): Promise<Array<{ name: string; n: number }>> => (names.length === 0 ? [] : db.rows(s.runningByName, [names])),
  };
}
