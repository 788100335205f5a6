/**
 * A remove that waits on a log append's lock on the job row (PostgreSQL)
 * deletes the lines the append committed meanwhile: nothing is left behind
 * that no read could reach.
 */
import { describe, expect, it } from 'vitest';
import { blockedBy, pgClient } from '../helpers/postgres.js';
import { claimOf, job, move, NOW, usePgStores } from './fixture.js';

const stores = usePgStores();

describe('remove racing a log append', () => {
  it('deletes the lines appended while the remove waited for the row', async () => {
    const schema = stores.schema();
    const store = stores.open({ schema });
    const { id } = (await store.insert([job()], NOW))[0]!;
    const { version } = (await store.get(id))!;
    const append = await pgClient();
    try {
      // What an append does: lock the job row, then insert its lines, in one transaction.
      await append.query('BEGIN');
      await append.query(`SELECT id FROM ${schema}.jobs WHERE id = $1 FOR NO KEY UPDATE`, [id]);
      const removing = store.removeJobs([{ id, version, state: 'pending' }], NOW);
      // The remove waits on the row lock (it cannot finish before the COMMIT below).
      await blockedBy(append);
      await append.query(`INSERT INTO ${schema}.job_logs (job_id, seq, at, attempt, level, message) VALUES ($1, 1, 0, 1, 'info', 'late line')`, [id]);
      await append.query('COMMIT');
      expect(await removing).toEqual([true]);
      const left = await append.query(`SELECT count(*)::int AS n FROM ${schema}.job_logs WHERE job_id = $1`, [id]);
      expect(left.rows[0]!.n).toBe(0);
    } finally {
      await append.end();
    }
  });
});

describe('a purge (retention 0) racing a log append', () => {
  it('deletes the lines appended while the purge waited for the row', async () => {
    const schema = stores.schema();
    const store = stores.open({ schema });
    await store.insert([job()], NOW);
    const [claimed] = await claimOf(store, { limit: 1 });
    const append = await pgClient();
    try {
      await append.query('BEGIN');
      await append.query(`SELECT id FROM ${schema}.jobs WHERE id = $1 FOR NO KEY UPDATE`, [claimed!.id]);
      const purging = store.transition([
        move({ id: claimed!.id, version: claimed!.version, from: 'processing', token: claimed!.leaseToken, to: 'completed', purge: true }),
      ]);
      await blockedBy(append);
      await append.query(`INSERT INTO ${schema}.job_logs (job_id, seq, at, attempt, level, message) VALUES ($1, 1, 0, 1, 'info', 'late line')`, [claimed!.id]);
      await append.query('COMMIT');
      expect((await purging).moved).toEqual([true]);
      const left = await append.query(`SELECT count(*)::int AS n FROM ${schema}.job_logs WHERE job_id = $1`, [claimed!.id]);
      expect(left.rows[0]!.n).toBe(0);
    } finally {
      await append.end();
    }
  });
});
