/**
 * The stores' durable steps (saveStep, steps): written only under the job's
 * lease, numbered in the order they complete, the first save of a name kept,
 * and deleted with their job by every kind of retention purge.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { NewJob, StepRecord, Store } from '../../src/store/store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { useQueues } from '../helpers/queue-fixture.js';

/** One step saved on its own: the store's batch of one. */
async function saveOne(store: Pick<Store, 'saveSteps'>, id: number, token: string, step: Omit<StepRecord, 'seq'>): Promise<boolean> {
  const [saved] = await store.saveSteps([{ id, token, step }]);
  return saved!;
}

const fx = useQueues();
let store: Store | undefined;
// Registered after the fixture's: runs first, so the store closes before its database goes.
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const now = 1_000_000;
const job = (name: string): NewJob => ({ name, state: 'pending', payload: '{}', key: null, priority: 0, runAt: now, retry: null, timeout: null });
const step = (name: string, result: string | null, wakeAt: number | null = null) => ({ name, result, wakeAt, attempt: 1, at: now + 1 });

async function leased(s: Store, name = 'j') {
  const { id } = (await s.insert([job(name)], now))[0]!;
  const [claimed] = (await s.claim({ names: [name], limit: 1, owner: 'o', leaseMs: 60_000, now, rule: CLAIM_RULE })).jobs;
  return { id, token: claimed!.leaseToken, version: claimed!.version };
}

describe('store.saveStep and store.steps', () => {
  it('records steps under the lease, in order, keeping the first save of a name', async () => {
    store = fx.store();
    const { id, token } = await leased(store);
    expect(await saveOne(store, id, token, step('a', '1'))).toBe(true);
    expect(await saveOne(store, id, token, step('nap', null, now + 500))).toBe(true);
    expect(await saveOne(store, id, token, step('b', null))).toBe(true);
    // Saved again (a retried write whose reply was lost): still true, the first row stays.
    expect(await saveOne(store, id, token, step('a', '2'))).toBe(true);
    expect(await store.steps(id)).toEqual([
      { name: 'a', seq: 1, result: '1', wakeAt: null, attempt: 1, at: now + 1 },
      { name: 'nap', seq: 2, result: null, wakeAt: now + 500, attempt: 1, at: now + 1 },
      { name: 'b', seq: 3, result: null, wakeAt: null, attempt: 1, at: now + 1 },
    ]);
    expect(await store.steps(id + 1)).toEqual([]);
  });

  it('saves a batch of several jobs\' steps in one call: each numbered after its job\'s own, each answered on its own', async () => {
    store = fx.store();
    const one = await leased(store, 'one');
    const two = await leased(store, 'two');
    expect(await saveOne(store, one.id, one.token, step('first', '1'))).toBe(true);
    const answers = await store.saveSteps([
      { id: one.id, token: one.token, step: step('second', '2') },
      { id: two.id, token: two.token, step: step('x', '"a"') },
      { id: two.id, token: `${two.token}x`, step: step('stale', '0') },
      { id: one.id, token: one.token, step: step('third', '3') },
      { id: two.id, token: two.token, step: step('y', '"b"') },
    ]);
    expect(answers).toEqual([true, true, false, true, true]);
    expect((await store.steps(one.id)).map((r) => [r.name, r.seq])).toEqual([['first', 1], ['second', 2], ['third', 3]]);
    expect((await store.steps(two.id)).map((r) => [r.name, r.seq])).toEqual([['x', 1], ['y', 2]]);
    expect(await store.saveSteps([])).toEqual([]);
  });

  it('refuses a save once the lease is lost (another token, or the job left processing), writing nothing', async () => {
    store = fx.store();
    const { id, token, version } = await leased(store);
    expect(await saveOne(store, id, `${token}x`, step('a', '1'))).toBe(false);
    const [expired] = (await store.transition([
      { id, version, from: 'processing', token, to: 'pending', event: 'job.expire', at: now, attempts: 1, lastError: null, ctx: null, runAt: now },
    ])).moved;
    expect(expired).toBe(true);
    expect(await saveOne(store, id, token, step('b', '1'))).toBe(false);
    expect(await store.steps(id)).toEqual([]);
  });

  it('deletes a job’s steps with the job: at once (retention 0) and by age', async () => {
    store = fx.store();
    const first = await leased(store, 'now');
    const second = await leased(store, 'later');
    for (const j of [first, second]) {
      expect(await saveOne(store, j.id, j.token, step('a', '1'))).toBe(true);
      expect(await saveOne(store, j.id, j.token, step('b', '2'))).toBe(true);
    }
    const done = (j: { id: number; token: string; version: number }, purge: boolean) => ({
      id: j.id, version: j.version, from: 'processing', token: j.token, to: 'completed', event: 'job.complete', at: now + 2, attempts: 1, lastError: null, ctx: null, purge,
    });
    expect((await store.transition([done(first, true), done(second, false)])).moved).toEqual([true, true]);
    expect(await store.get(first.id)).toBeUndefined();
    expect(await store.steps(first.id)).toEqual([]);
    expect(await store.steps(second.id)).toHaveLength(2);
    expect(await store.purgeFinished('completed', now + 3, 10)).toBe(1);
    expect(await store.steps(second.id)).toEqual([]);
    expect(await fx.value('SELECT count(*) AS n FROM job_steps')).toBe(0);
  });

  it('deletes the steps when a batch names a job twice (request by request)', async () => {
    store = fx.store();
    const j = await leased(store);
    expect(await saveOne(store, j.id, j.token, step('a', '1'))).toBe(true);
    const complete = { id: j.id, version: j.version, from: 'processing', token: j.token, to: 'completed', event: 'job.complete', at: now + 2, attempts: 1, lastError: null, ctx: null, purge: true };
    // The second request misses (the job is gone): the batch runs request by request.
    expect((await store.transition([complete, complete])).moved).toEqual([true, false]);
    expect(await store.steps(j.id)).toEqual([]);
  });
});
