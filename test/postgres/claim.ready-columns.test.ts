/**
 * The fast claim reads through the schema's claim_ready function, whose
 * result columns a migration spells out; every other claim reads the ready
 * set by its include (src/store/job-columns.ts). A column added to the set
 * needs the function made again in its migration: this says so.
 */
import { expect, it } from 'vitest';
import { READY_COLUMNS } from '../../src/store/job-columns.js';
import { pgClient } from '../helpers/postgres.js';
import { usePgStores } from './fixture.js';

const pg = usePgStores();

it('claim_ready answers the ready columns, then its own two', async () => {
  const schema = pg.schema();
  await pg.open({ schema }).ping();
  const admin = await pgClient();
  try {
    // No names: only its last row, whose columns are all the function's.
    const { rows } = await admin.query(`SELECT * FROM "${schema}".claim_ready(ARRAY[]::text[], 0, 0, '', '', 0, 0, '', false, 0)`);
    expect(Object.keys(rows[0]!)).toEqual([...READY_COLUMNS, 'grouped', 'pause_ends']);
  } finally {
    await admin.end();
  }
});
