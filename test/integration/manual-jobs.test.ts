/**
 * Manual fetching (BullMQ's getNextJob / moveToCompleted / moveToFailed):
 * `queue.take()` claims one job under a lease as the pool would, and the
 * taker finishes it with `complete` or `fail`, renewing with `heartbeat`;
 * an outcome lands only while the lease is still the taker's.
 */
import { describe, expect, it } from 'vitest';
import { declareJob, defineJob } from '../../src/index.js';
import { LeaseLostError, UnrecoverableError, ValidationError } from '../../src/errors.js';
import { systemClock, type Clock } from '../../src/lib/clock.js';
import { useQueues } from '../helpers/queue-fixture.js';

const fx = useQueues();
/** Jobs taken by hand: defined (their retry policy and limits decide), never started, so their handlers never run. */
const never = (): never => {
  throw new Error('a queue that only takes by hand never runs a handler');
};
const jobs = [defineJob({ name: 'work', handler: (_p: { n: number }): number => never() }), defineJob({ name: 'other', handler: never })];

describe('take, complete, fail, heartbeat', () => {
  it('takes the next due job of the names asked for, by priority; completes it with its result', async () => {
    const q = fx.open({ jobs });
    expect(await q.take()).toBeNull();
    const low = await q.enqueue('work', { n: 1 });
    const high = await q.enqueue('work', { n: 2 }, { priority: 5 });
    await q.enqueue('other', { n: 3 });
    await q.enqueue('work', { n: 4 }, { delay: 60_000 });
    const first = await q.take({ names: ['work'] });
    expect(first).toMatchObject({ id: high.id, name: 'work', state: 'processing', payload: { n: 2 }, attempts: 1 });
    expect(first!.token).toEqual(expect.any(String));
    expect(first!.lockedUntil.getTime()).toBeGreaterThan(Date.now());
    const done = await q.complete(first!, (first!.payload as { n: number }).n * 10);
    expect(done).toMatchObject({ id: high.id, state: 'completed', result: 20 });
    expect(await q.result(high.id)).toBe(20);
    expect((await q.take({ names: ['work'] }))!.id).toBe(low.id);
    expect(await q.take({ names: ['work'] })).toBeNull(); // the delayed one is not due
    expect((await q.history(high.id)).map((t) => t.event)).toEqual(['job.enqueue', 'job.claim', 'job.complete']);
  });

  it('fail goes by the retry policy: failed to retry, dead when spent or unrecoverable', async () => {
    let offset = 0;
    const clock: Clock = { ...systemClock, now: () => Date.now() + offset };
    const q = fx.open({ clock, jobs: [defineJob({ name: 'work', retry: { attempts: 2, backoff: { type: 'fixed', delay: 5000 } }, handler: never })] });
    const { id } = await q.enqueue('work', {});
    const once = await q.take();
    expect(await q.fail(once!, new Error('flaky'))).toMatchObject({ state: 'failed', lastError: { message: 'flaky' } });
    offset = 2000;
    expect(await q.take()).toBeNull(); // its backoff
    offset = 10_000;
    // With no started queue about, take itself brings the retry due (its sweeps run at most once a second).
    const again = await q.take();
    expect(again).toMatchObject({ id, attempts: 2 });
    expect(await q.fail(again!, new Error('still'))).toMatchObject({ state: 'dead' });
    const other = await q.enqueue('work', {});
    expect(await q.fail((await q.take())!, new UnrecoverableError('bad input'))).toMatchObject({ id: other.id, state: 'dead', attempts: 1 });
  });

  it('a taker whose lease ran out is refused, and the job stays with whoever took it next', async () => {
    let offset = 0;
    const clock: Clock = { ...systemClock, now: () => Date.now() + offset };
    const slow = fx.open({ clock, jobs });
    const fast = fx.open({ clock, jobs });
    const { id } = await slow.enqueue('work', { n: 1 });
    const stale = await slow.take({ lease: 1000 });
    offset = 5000; // past the lease: the next take finds it ran out, and the job's attempt fails (it retries after its backoff)
    // The expiry fails the attempt; its retry (the default backoff, a second) is brought due by a later take.
    expect(await fast.take({ lease: 60_000 })).toBeNull();
    expect(await fast.getJob(id)).toMatchObject({ state: 'failed', lastError: { code: 'LJ_ERR_LEASE_LOST' } });
    offset = 10_000;
    const fresh = await fast.take({ lease: 60_000 });
    expect(fresh).toMatchObject({ id, attempts: 2 });
    expect(await slow.heartbeat(stale!)).toBe(false);
    await expect(slow.complete(stale!, 1)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(slow.fail(stale!, new Error('late'))).rejects.toBeInstanceOf(LeaseLostError);
    expect(await fast.getJob(id)).toMatchObject({ state: 'processing', leaseOwner: expect.stringContaining('/manual') });
    expect(await fast.complete(fresh!, 2)).toMatchObject({ state: 'completed', result: 2 });
  });

  it('a job cancelled while taken: heartbeat says so, complete is refused and the hold given back', async () => {
    const q = fx.open({ jobs });
    const { id } = await q.enqueue('work', { n: 1 });
    const taken = await q.take();
    expect(await q.heartbeat(taken!, { lease: 60_000 })).toBe(true);
    await q.cancel(id);
    expect(await q.heartbeat(taken!)).toBe(false);
    await expect(q.complete(taken!, 1)).rejects.toBeInstanceOf(LeaseLostError);
    const after = await q.getJob(id);
    expect(after.state).toBe('cancelled');
    expect(after.leaseOwner).toBeUndefined();
    expect(await fx.value('SELECT lease_token FROM jobs WHERE id = ?', [id])).toBeNull();
  });

  it('a heartbeat that finds the job cancelled gives its hold back: the job run again is taken at once', async () => {
    const q = fx.open({ jobs });
    const { id } = await q.enqueue('work', { n: 1 });
    const taken = await q.take({ lease: 1000 });
    await q.cancel(id);
    expect(await q.heartbeat(taken!, { lease: 86_400_000 })).toBe(false);
    await q.runAgain(id);
    expect(await q.take()).toMatchObject({ id, state: 'processing' });
  });

  it('a taker that died holding a cancelled job: once its hold runs out, a later take gives it back (and its unique key with it)', async () => {
    let offset = 0;
    const clock: Clock = { ...systemClock, now: () => Date.now() + offset };
    const dead = fx.open({ clock, jobs });
    const alive = fx.open({ clock, jobs });
    const { id } = await dead.enqueue('work', { n: 1 }, { unique: { key: 'u', while: 'until-finished' } });
    await dead.take({ lease: 1000 }); // and never heard of again
    await alive.cancel(id);
    const holder = () => fx.value('SELECT lease_token FROM jobs WHERE id = ?', [id]);
    expect(await holder()).not.toBeNull(); // the taker's hold: its run may still be going
    offset = 5000;
    expect(await alive.take()).toBeNull();
    expect(await holder()).toBeNull();
    expect(await alive.enqueue('work', { n: 2 }, { unique: { key: 'u', while: 'until-finished' } })).toMatchObject({ created: true });
  });

  it('with retention 0 the job as it ended: its result, or its error', async () => {
    const q = fx.open({ retention: { completed: 0, dead: 0 }, jobs });
    const a = await q.enqueue('work', { n: 1 });
    const b = await q.enqueue('work', { n: 2 });
    expect(await q.complete((await q.take())!, { ok: 1 })).toMatchObject({ id: a.id, state: 'completed', result: { ok: 1 } });
    expect(await q.fail((await q.take())!, new UnrecoverableError('boom'))).toMatchObject({ id: b.id, state: 'dead', lastError: { message: 'boom' } });
    expect(await q.result(a.id)).toEqual({ ok: 1 });
  });

  it("takes only jobs the queue defines: a declared one would skip its definition's limits, machine and retry policy", async () => {
    const definer = fx.open({ jobs: [defineJob({ name: 'g', globalConcurrency: 1, handler: never })] });
    const declarer = fx.open({ jobs: [declareJob('g')] });
    await definer.enqueueMany([{ name: 'g', payload: 1 }, { name: 'g', payload: 2 }]);
    await expect(declarer.take()).rejects.toBeInstanceOf(ValidationError);
    await expect(declarer.take({ names: ['g'] })).rejects.toThrow(/not defined by this queue/);
    expect(await definer.take()).not.toBeNull();
    expect(await definer.take()).toBeNull(); // its global concurrency of 1
  });

  it('refuses bad input with ValidationError, writing nothing', async () => {
    const q = fx.open({ jobs: [] });
    await expect(q.take()).rejects.toBeInstanceOf(ValidationError); // no names, and none given
    await expect(q.take({ names: [] })).rejects.toBeInstanceOf(ValidationError);
    await expect(q.take({ names: ['work'] })).rejects.toBeInstanceOf(ValidationError); // not defined here
    const w = fx.open({ jobs });
    await expect(w.take({ names: ['work'], lease: 5 })).rejects.toBeInstanceOf(ValidationError);
    await expect(w.take({ names: ['work'], wait: 1 } as never)).rejects.toMatchObject({ code: 'LJ_ERR_UNKNOWN_OPTION' });
    await expect(q.complete({ id: 0, token: 'x' })).rejects.toBeInstanceOf(ValidationError);
    await expect(q.heartbeat(null as never)).rejects.toBeInstanceOf(ValidationError);
  });
});
