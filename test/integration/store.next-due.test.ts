/**
 * The due timer sleeps until store.nextDueAt(): it must see delayed pending
 * jobs and delayed states of the names asked for, and nothing else.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { NewJob, Store } from '../../src/store/store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { useQueues } from '../helpers/queue-fixture.js';

const fx = useQueues();
let store: Store | undefined;
// Registered after the fixture's: runs first, so the store closes before its database goes.
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const job = (name: string, runAt: number): NewJob => ({ name, state: 'pending', payload: '{}', key: null, priority: 0, runAt, retry: null, timeout: null });

describe('store.nextDueAt', () => {
  it('finds the earliest delayed pending job of the given names, ignoring jobs due at creation and other names', async () => {
    store = fx.store();
    const now = 1_000_000;
    await store.insert([job('a', now), job('a', now + 500), job('a', now + 200), job('b', now + 50)], now);
    expect(await store.nextDueAt(['a'], ['pending', 'failed'])).toBe(now + 200);
    expect(await store.nextDueAt(['b'], ['pending', 'failed'])).toBe(now + 50);
    expect(await store.nextDueAt(['c'], ['pending', 'failed'])).toBeNull();
    // Claiming the due and the soonest delayed job moves the answer on.
    (await store.claim({ names: ['a'], limit: 10, owner: 'o', leaseMs: 1000, now: now + 300, rule: CLAIM_RULE })).jobs;
    expect(await store.nextDueAt(['a'], ['pending', 'failed'])).toBe(now + 500);
  });

  it('finds a failed job waiting for its retry', async () => {
    store = fx.store({ history: false });
    const now = 2_000_000;
    const { id } = (await store.insert([job('a', now)], now))[0]!;
    const [claimed] = (await store.claim({ names: ['a'], limit: 1, owner: 'o', leaseMs: 1000, now, rule: CLAIM_RULE })).jobs;
    expect(await store.nextDueAt(['a'], ['pending', 'failed'])).toBeNull();
    const fail = { id, from: 'processing', token: claimed!.leaseToken, to: 'failed', event: 'job.fail', at: now, attempts: 1, lastError: null, ctx: null, runAt: now + 750 };
    // Named at the version before the claim (an old read of the job), the move misses; at the claimed version it lands.
    expect((await store.transition([{ ...fail, version: claimed!.version - 1 }])).moved).toEqual([false]);
    const [ok] = (await store.transition([{ ...fail, version: claimed!.version }])).moved;
    expect(ok).toBe(true);
    expect(await store.nextDueAt(['a'], ['pending', 'failed'])).toBe(now + 750);
    expect((await store.dueJobs(['a'], ['failed'], now + 749, 10)).map((j) => j.id)).toEqual([]);
    expect((await store.dueJobs(['a'], ['failed'], now + 750, 10)).map((j) => j.id)).toEqual([id]);
  });
});
