/**
 * A producer process is SIGKILLed while it enqueues: every job whose enqueue
 * (or enqueueMany) promise resolved in that process is in the file afterwards,
 * as it was acknowledged, and each enqueueMany batch is there whole or not at all.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { spawnChild } from '../helpers/child-process.js';
import { tempDbPath } from '../helpers/temp-db.js';




const BATCH = 25; // ENQUEUE_BATCH in the fixture

describe('a producer killed with SIGKILL', () => {
  it.each([250, 2000])('never loses an acknowledged job (killed after %i acknowledged ids)', async (threshold) => {
    const db = tempDbPath();
    try {
      const producer = spawnChild(db.path, 'enqueue');
      const acked = () => producer.messages.filter((m) => m.type === 'ack').reduce((n, m) => n + (m.ids as number[]).length, 0);
      await producer.waitFor(() => acked() >= threshold, 60_000);
      producer.proc.kill('SIGKILL'); // right away: the producer is in the middle of its next enqueue
      const exit = await producer.exited;
      expect(exit.signal).toBe('SIGKILL');

      // Every line the producer wrote before it died counts: each lists ids whose promises had resolved.
      const acks = producer.messages.filter((m) => m.type === 'ack') as unknown as Array<{ via: 'many' | 'one'; round: number; ids: number[] }>;
      const ids = acks.flatMap((a) => a.ids);
      expect(ids.length).toBeGreaterThanOrEqual(threshold);
      expect(new Set(ids).size).toBe(ids.length);

      const file = new Database(db.path, { readonly: true, fileMustExist: true });
      try {
        const rows = file.prepare('SELECT id, name, state, payload, attempts FROM jobs ORDER BY id').all() as Array<{
          id: number;
          name: string;
          state: string;
          payload: string;
          attempts: number;
        }>;
        const byId = new Map(rows.map((r) => [r.id, r]));
        // Each acknowledged id is in the file, as enqueued.
        const missing = ids.filter((id) => !byId.has(id));
        expect(missing).toEqual([]);
        for (const a of acks) {
          a.ids.forEach((id, i) => {
            const row = byId.get(id)!;
            expect({ name: row.name, state: row.state, attempts: row.attempts, payload: JSON.parse(row.payload) as unknown }).toEqual({
              name: 'work',
              state: 'pending',
              attempts: 0,
              payload: { round: a.round, via: a.via, i },
            });
          });
        }
        // The file holds at most what was acknowledged plus the one call cut short; an enqueueMany batch is all or nothing.
        const groups = new Map<string, number>();
        for (const r of rows) {
          const p = JSON.parse(r.payload) as { round: number; via: string };
          groups.set(`${p.round}/${p.via}`, (groups.get(`${p.round}/${p.via}`) ?? 0) + 1);
        }
        for (const [group, n] of groups) {
          if (group.endsWith('/many')) expect(n, group).toBe(BATCH);
          else expect(n, group).toBeLessThanOrEqual(BATCH);
        }
        expect(rows.length - ids.length).toBeLessThanOrEqual(BATCH);
        // Nothing was ever claimed, so no transition was recorded (creation is the row itself).
        expect(file.prepare('SELECT count(*) FROM job_history').pluck().get()).toBe(0);
        expect(file.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        file.close();
      }
    } finally {
      db.cleanup();
    }
  }, 90_000);
});
