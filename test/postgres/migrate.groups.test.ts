/**
 * `litejobs migrate` carries concurrency groups and limits from a SQLite file
 * to PostgreSQL: each job's group, and the limits table's rows (rate-limit
 * buckets, pauses, a group's own concurrency), and the job names' own
 * rules (limits changed while the queues ran, retention). A copied bucket goes on
 * limiting claims on PostgreSQL, and a copied grouped job is claimed group by
 * group there.
 */
import { expect, it } from 'vitest';
import { copyJobs } from '../../src/migrate/copy.js';
import { openSource } from '../../src/migrate/source.js';
import { openTarget } from '../../src/migrate/target.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { pgUrl } from '../helpers/postgres.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { job, NOW, usePgStores } from './fixture.js';

const pg = usePgStores();

it('copies each job group and every limit row; on PostgreSQL they hold as they did', async () => {
  const file = tempDbPath();
  const schema = pg.schema();
  try {
    const sqlite = createSqliteStore({ path: file.path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 1000, history: true });
    const inserted = await sqlite.insert([job({ group: 'g1' }), job({ group: 'g1' }), job({ group: 'g2' }), job(), job({ name: 'r' }), job({ name: 'r' })], NOW);
    await sqlite.setGroupConcurrency('g1', 3, NOW);
    await sqlite.pauseLimit('group', 'g2', NOW + 5000, NOW);
    // A rate limit of 1 a minute, spent by a claim on SQLite.
    const limits = new Map([['r', { rateLimit: { max: 1, perMs: 60_000, perGroup: false } }]]);
    expect((await sqlite.claim({ names: ['r'], limit: 5, owner: 'w', leaseMs: 1000, now: NOW, rule: CLAIM_RULE, limits })).jobs).toHaveLength(1);
    const sqliteLimits = await sqlite.limits();
    expect(sqliteLimits).toHaveLength(3);
    // Job names' limits changed while the queues ran, and a name's own retention: kept rules of the file.
    await sqlite.saveNameLimits('r', '{"globalConcurrency":2}', NOW);
    await sqlite.saveNameRetention([{ name: 'r', rule: '{"completed":{"count":5}}' }], NOW);
    await sqlite.close();

    const source = openSource(file.path);
    const target = openTarget({ connection: pgUrl(), schema, identity: source.identity });
    try {
      const summary = await copyJobs(source, target, { batch: 2, reserve: 0, allowRunning: true, now: () => NOW });
      expect(summary).toMatchObject({ copied: 6, verified: true });
    } finally {
      source.close();
      await target.close();
    }

    const store = pg.open({ schema });
    expect(await store.limits()).toEqual(sqliteLimits);
    expect(await store.nameLimits()).toEqual([{ name: 'r', rule: '{"globalConcurrency":2}' }]);
    expect(await store.nameRetention()).toEqual([{ name: 'r', rule: '{"completed":{"count":5}}' }]);
    expect((await Promise.all(inserted.map((r) => store.get(r.id)))).map((j) => j?.group)).toEqual(['g1', 'g1', 'g2', null, null, null]);
    // The copied bucket is spent: no second claim of r within the minute; the copied pause holds g2 back.
    const claim = (names: string[], now: number) => store.claim({ names, limit: 10, owner: 'w', leaseMs: 1000, now, rule: CLAIM_RULE, limits });
    const r = await claim(['r'], NOW + 5001);
    expect(r.jobs).toHaveLength(0);
    expect(r.heldBack).toEqual({ until: NOW + 60_000, tokensOut: true });
    const a = await claim(['a'], NOW + 1);
    expect(a.jobs.map((j) => j.group ?? '-').sort()).toEqual(['-', 'g1', 'g1']);
    expect(a.heldBack).toEqual({ until: NOW + 5000 });
  } finally {
    file.cleanup();
  }
});
