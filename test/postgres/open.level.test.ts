/**
 * Opening a schema on PostgreSQL: one already at this version's level opens
 * with a read of its level, without the migrators' lock or a transaction (a
 * process holding that lock, a migrator at work on another version, holds
 * no one up who needs nothing migrated); one made by a newer litejobs is
 * refused either way.
 */
import { expect, it } from 'vitest';
import { latestMigration } from '../../src/store/postgres/sql.js';
import { pgClient } from '../helpers/postgres.js';
import { usePgStores } from './fixture.js';

const pg = usePgStores();

const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<'held up'>((resolve) => setTimeout(() => resolve('held up'), ms))]);

it('a schema at this version’s level opens while another session holds the migrators’ lock', async () => {
  const schema = pg.schema();
  await pg.open({ schema }).ping(); // made and migrated
  const admin = await pgClient();
  try {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [`litejobs migrate ${schema}`]);
    expect(await within(pg.open({ schema }).ping().then(() => 'opened'), 5000)).toBe('opened');
  } finally {
    await admin.end(); // the session's lock goes with it
  }
});

it('a schema made by a newer litejobs is refused with LJ_ERR_DATABASE_OPEN, its level left as it is', async () => {
  const schema = pg.schema();
  await pg.open({ schema }).ping();
  const admin = await pgClient();
  try {
    await admin.query(`UPDATE "${schema}".queue_meta SET value = $1 WHERE key = 'migration_level'`, [latestMigration() + 1]);
    await expect(pg.open({ schema }).ping()).rejects.toMatchObject({ code: 'LJ_ERR_DATABASE_OPEN', message: expect.stringContaining('newer litejobs') });
    const { rows } = await admin.query<{ value: string | number }>(`SELECT value FROM "${schema}".queue_meta WHERE key = 'migration_level'`);
    expect(Number(rows[0]!.value)).toBe(latestMigration() + 1);
  } finally {
    await admin.end();
  }
});
