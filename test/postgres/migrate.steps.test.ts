/**
 * `litejobs migrate` carries each job's durable steps from a SQLite file to
 * PostgreSQL, batch by batch with their jobs: a job copied mid-way replays
 * the same steps there.
 */
import { expect, it } from 'vitest';
import { copyJobs } from '../../src/migrate/copy.js';
import { openSource } from '../../src/migrate/source.js';
import { openTarget } from '../../src/migrate/target.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { StepRecord, Store } from '../../src/store/store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { pgUrl } from '../helpers/postgres.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { job, NOW, usePgStores } from './fixture.js';

/** One step saved on its own: the store's batch of one. */
async function saveOne(store: Pick<Store, 'saveSteps'>, id: number, token: string, step: Omit<StepRecord, 'seq'>): Promise<boolean> {
  const [saved] = await store.saveSteps([{ id, token, step }]);
  return saved!;
}

const pg = usePgStores();

it('copies every job’s steps, in batches that split the jobs', async () => {
  const file = tempDbPath();
  const schema = pg.schema();
  try {
    const sqlite = createSqliteStore({ path: file.path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 1000, history: true });
    await sqlite.insert([job(), job(), job()], NOW);
    const claimed = (await sqlite.claim({ names: ['a'], limit: 3, owner: 'w', leaseMs: 1000, now: NOW, rule: CLAIM_RULE })).jobs;
    expect(claimed).toHaveLength(3);
    const [first, , third] = claimed;
    const step = (name: string, result: string | null, wakeAt: number | null = null) => ({ name, result, wakeAt, attempt: 1, at: NOW + 1 });
    expect(await saveOne(sqlite, first!.id, first!.leaseToken, step('fetch', '{"rows":3}'))).toBe(true);
    expect(await saveOne(sqlite, first!.id, first!.leaseToken, step('nap', null, NOW + 60_000))).toBe(true);
    expect(await saveOne(sqlite, third!.id, third!.leaseToken, step('only', '"x"'))).toBe(true);
    const before = await Promise.all(claimed.map((j) => sqlite.steps(j.id)));
    await sqlite.close();

    const source = openSource(file.path);
    const target = openTarget({ connection: pgUrl(), schema, identity: source.identity });
    try {
      const summary = await copyJobs(source, target, { batch: 2, reserve: 0, allowRunning: true, now: () => NOW });
      expect(summary).toMatchObject({ copied: 3, verified: true });
    } finally {
      source.close();
      await target.close();
    }

    const store = pg.open({ schema });
    const after = await Promise.all(claimed.map((j) => store.steps(j.id)));
    expect(after).toEqual(before);
    expect(after.map((s) => s.length)).toEqual([2, 0, 1]);
    // Still leased under the copied token: the next step takes the next seq.
    expect(await saveOne(store, first!.id, first!.leaseToken, step('ship', null))).toBe(true);
    expect((await store.steps(first!.id)).map((s) => [s.name, s.seq])).toEqual([['fetch', 1], ['nap', 2], ['ship', 3]]);
  } finally {
    file.cleanup();
  }
});

it('copies each job’s mailbox, in the order sent and taken or not, and the values it published', async () => {
  const file = tempDbPath();
  const schema = pg.schema();
  try {
    const sqlite = createSqliteStore({ path: file.path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 1000, history: true });
    await sqlite.insert([job(), job()], NOW);
    const [first, second] = (await sqlite.claim({ names: ['a'], limit: 2, owner: 'w', leaseMs: 1000, now: NOW, rule: CLAIM_RULE })).jobs;
    const send = (id: number, topic: string, data: string, key: string | null = null) => sqlite.sendMessage({ id, topic, data, key, at: NOW, refused: [] });
    expect(await send(first!.id, 'paid', '{"n":1}', 'evt_1')).toBe('sent');
    expect(await send(first!.id, 'paid', '{"n":2}')).toBe('sent');
    expect(await send(second!.id, 'other', '"x"')).toBe('sent');
    // The first message taken by a wait of the running job.
    expect(await sqlite.takeMessage({ id: first!.id, token: first!.leaseToken, topic: 'paid', step: { name: 'waitFor:paid#1', attempt: 1, at: NOW } })).toEqual({ result: '{"message":{"n":1}}', replayed: null });
    expect(await sqlite.publish(first!.id, first!.leaseToken, 'status', '{"stage":"paid"}', NOW)).toBe('written');
    await sqlite.close();

    const source = openSource(file.path);
    const target = openTarget({ connection: pgUrl(), schema, identity: source.identity });
    try {
      expect(await copyJobs(source, target, { batch: 1, reserve: 0, allowRunning: true, now: () => NOW })).toMatchObject({ copied: 2, verified: true });
    } finally {
      source.close();
      await target.close();
    }
    const store = pg.open({ schema });
    // The next wait takes the next message; the taken one stays taken, and its key still finds it.
    expect(await store.takeMessage({ id: first!.id, token: first!.leaseToken, topic: 'paid', step: { name: 'waitFor:paid#2', attempt: 1, at: NOW } })).toEqual({ result: '{"message":{"n":2}}', replayed: null });
    // The first wait, run again, gets its message back as the step copied: nothing more is taken.
    expect(await store.takeMessage({ id: first!.id, token: first!.leaseToken, topic: 'paid', step: { name: 'waitFor:paid#1', attempt: 2, at: NOW } })).toEqual({ result: '{"message":{"n":1}}', replayed: 1 });
    expect(await store.sendMessage({ id: first!.id, topic: 'paid', data: '{"n":1}', key: 'evt_1', at: NOW, refused: [] })).toBe('duplicate');
    expect(await store.hasMessage(second!.id, 'other')).toBe(true);
    expect(await store.publishedValues(first!.id)).toEqual([{ key: 'status', value: '{"stage":"paid"}', at: NOW }]);
  } finally {
    file.cleanup();
  }
});
