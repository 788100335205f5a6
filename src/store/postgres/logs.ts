/**
 * The PostgreSQL store's job logs (ctx.log): the job_logs table of migration
 * 007, with the SQLite store's semantics (sqlite/logs.ts).
 *
 * An append locks its jobs' rows first, in id order, then numbers each
 * job's lines after its stored ones in a statement of its own: under READ
 * COMMITTED that statement sees the lines another process appended to the
 * same job (an expired lease's run beside the next one) before it took the
 * lock, where one statement doing both would number from an older snapshot.
 */
import type { Store } from '../store.js';
import { toLogRecord, type LogRow } from '../rows.js';
import type { Database } from './connect.js';
import { render } from './sql.js';

export function createPostgresLogs(db: Database, schema: string): Pick<Store, 'appendLogs' | 'jobLogs'> {
  const q = (text: string) => render(text, schema);
  const s = {
    lock: q('SELECT id FROM {{schema}}.jobs WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE'),
    // append-logs.sql then trim-logs.sql, for a batch: `rel` numbers each line within its job's part of the batch.
    // Only lines that stay are inserted, and the trim deletes the stored lines that no longer do.
    append: q(`WITH l AS (
        SELECT * FROM unnest($1::bigint[], $2::int[], $3::int[], $4::bigint[], $5::text[], $6::text[], $7::text[])
          AS u (job_id, attempt, rel, at, level, message, fields)
      ), top AS (
        SELECT j.id, coalesce((SELECT max(seq) FROM {{schema}}.job_logs g WHERE g.job_id = j.id), 0) AS seq, m.n
        FROM {{schema}}.jobs j JOIN (SELECT job_id, max(rel) AS n FROM l GROUP BY job_id) m ON m.job_id = j.id
      ), added AS (
        INSERT INTO {{schema}}.job_logs (job_id, seq, at, attempt, level, message, fields)
        SELECT l.job_id, top.seq + l.rel, l.at, l.attempt, l.level, l.message, l.fields
        FROM l JOIN top ON top.id = l.job_id WHERE l.rel > top.n - $8::int
      )
      DELETE FROM {{schema}}.job_logs g USING top WHERE g.job_id = top.id AND g.seq <= top.seq + top.n - $8::int`),
    // logs.sql and logs-first.sql in one statement (one snapshot): a row even when the page is empty.
    page: q(`SELECT (SELECT min(seq) FROM {{schema}}.job_logs WHERE job_id = $1) AS first, p.*
      FROM (SELECT 1) AS one LEFT JOIN LATERAL (
        SELECT seq, at, attempt, level, message, fields FROM {{schema}}.job_logs WHERE job_id = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3
      ) AS p ON true
      ORDER BY p.seq`),
  };
  return {
    appendLogs: async (items, keep) => {
      const columns: unknown[][] = [[], [], [], [], [], [], []];
      // A job named twice (two runs of it flushed together) numbers its second run's lines after its first's.
      const used = new Map<number, number>();
      for (const item of items) {
        let rel = (used.get(item.id) ?? 0) + item.skipped;
        for (const l of item.lines) {
          const row = [item.id, item.attempt, ++rel, l.at, l.level, l.message, l.fields];
          for (let c = 0; c < row.length; c++) columns[c]!.push(row[c]);
        }
        used.set(item.id, rel);
      }
      if (columns[0]!.length === 0) return;
      const ids = [...used.keys()];
      await db.tx(async (client) => {
        await client.query(s.lock, [ids]);
        await client.query(s.append, [...columns, keep]);
      });
    },
    jobLogs: async (id, { after, limit }) => {
      const rows = await db.rows<{ first: number | null } & Partial<LogRow>>(s.page, [id, after, limit]);
      const first = rows[0]?.first;
      return { lines: rows.filter((r) => r.seq != null).map((r) => toLogRecord(r as LogRow)), dropped: first == null ? 0 : Number(first) - 1 };
    },
  };
}
