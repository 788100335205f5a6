/**
 * A finishing move that deletes its job (retention 0) while another
 * transaction gives the job's throttle key back (an enqueue that found its
 * window passed) and commits while the move waits for the row: the move
 * still lands, as a delete or as a move. Judged on the snapshot by one branch
 * and on the changed row by the other, it once did neither.
 */
import { expect, it } from 'vitest';
import { pgClient } from '../helpers/postgres.js';
import { claimOf, job, move, NOW, usePgStores } from './fixture.js';

const pg = usePgStores();

it('a purge whose window is open lands though a throttle key give-back commits while it waits', async () => {
  const schema = pg.schema();
  const store = pg.open({ schema });
  const [ins] = await store.insert([job({ unique: { kind: 'throttle', key: 'k', span: 4, until: NOW + 1000, windowMs: 1000, clockAt: NOW } })], NOW);
  const [c] = await claimOf(store);
  const other = await pgClient();
  try {
    await other.query('BEGIN');
    // An enqueue elsewhere, on a clock at the window's end, gives the key back (unique-throttle-expired.sql).
    await other.query(`UPDATE "${schema}".jobs SET unique_key = NULL WHERE unique_kind = 'throttle' AND unique_key = 'k' AND unique_until <= $1`, [NOW + 1000]);
    // This worker's database time is a millisecond short of it: the window is open for it.
    const moving = store.transition([move({ id: ins!.id, version: c!.version, from: 'processing', token: c!.leaseToken, to: 'completed', purge: true, throttleAt: NOW + 999 })]);
    await new Promise((r) => setTimeout(r, 200));
    await other.query('COMMIT');
    expect((await moving).moved).toEqual([true]);
    expect((await store.get(ins!.id))?.state).toBe('completed');
  } finally {
    await other.end();
  }
});
