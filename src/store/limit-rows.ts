/** The limits table's rows as both stores read them (migrations: SQLite 008, PostgreSQL 004). */
import type { Spent } from './claim-limits.js';
import type { LimitKind, LimitRecord } from './store.js';

export interface LimitRow {
  kind: string;
  key: string;
  concurrency: number | null;
  spent: string | null;
  paused_until: number | string | null;
  updated_at: number | string;
}

export function toLimitRecord(r: LimitRow): LimitRecord {
  return {
    kind: r.kind as LimitKind,
    key: r.key,
    concurrency: r.concurrency,
    spent: r.spent === null ? [] : (JSON.parse(r.spent) as Spent),
    pausedUntil: r.paused_until === null ? null : Number(r.paused_until),
    updatedAt: Number(r.updated_at),
  };
}
