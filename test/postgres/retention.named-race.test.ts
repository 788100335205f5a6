/**
 * Retention by count on PostgreSQL against a job that moves while the purge
 * runs: the purge reads the newest N from its snapshot, so a dead job retried
 * meanwhile (committed after that snapshot, before the purge locks its row)
 * must be judged again and kept. A count of many rows makes the window wide;
 * each trial retries the oldest dead job at a different moment of the purge.
 */
import { expect, it } from 'vitest';
import { pgClient } from '../helpers/postgres.js';
import { usePgStores } from './fixture.js';

const pg = usePgStores();

it('a count purge never deletes a job retried while it ran', { timeout: 60_000 }, async () => {
  const schema = pg.schema();
  const store = pg.open({ schema });
  await store.ping();
  const c = await pgClient();
  try {
    const KEEP = 200_000;
    await c.query(`INSERT INTO "${schema}".jobs (name, state, payload, run_at, created_at, updated_at) SELECT 'x', 'dead', '{}', 0, 0, 1000000000 + g FROM generate_series(1, ${KEEP}) g`);
    await c.query(`ANALYZE "${schema}".jobs`);
    await store.purgeNamed({ name: 'x', state: 'dead', keep: KEEP + 10 }, 500); // builds the index by name
    const lost: string[] = [];
    for (let t = 0; t < 12; t++) {
      // Fifty dead jobs older than the kept ones: the purge takes them; the first is retried meanwhile.
      const { rows } = await c.query<{ id: string }>(`INSERT INTO "${schema}".jobs (name, state, payload, run_at, created_at, updated_at) SELECT 'x', 'dead', '{}', 0, 0, 1000 + g FROM generate_series(1, 50) g RETURNING id`);
      const retried = Number(rows[0]!.id);
      const purge = store.purgeNamed({ name: 'x', state: 'dead', keep: KEEP }, 500);
      await new Promise((r) => setTimeout(r, (t % 6) * 8));
      const moved = await c.query(`UPDATE "${schema}".jobs SET state = 'pending', version = version + 1, updated_at = 5e12 WHERE id = $1 AND state = 'dead'`, [retried]);
      await purge;
      const left = await c.query(`SELECT 1 FROM "${schema}".jobs WHERE id = $1`, [retried]);
      if (moved.rowCount === 1 && left.rowCount === 0) lost.push(`trial ${t}: job ${retried} retried, then deleted`);
      await c.query(`DELETE FROM "${schema}".jobs WHERE id = $1`, [retried]);
    }
    expect(lost).toEqual([]);
  } finally {
    await c.end();
  }
});
