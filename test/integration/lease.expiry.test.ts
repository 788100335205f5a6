import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob, type InsertResult, type JobRecord, type TransitionRequest } from '../../src/index.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent, waitFor } from '../helpers/wait.js';

const fx = useQueues();

describe('leases', () => {
  it('a job left processing by a crashed worker is expired by the sweeper and retried', async () => {
    const producer = fx.open();
    const { id } = await producer.enqueue('j', { n: 1 });
    // A worker claimed it, then its process died: the lease ran out long ago.
    await fx.sql("UPDATE jobs SET state='processing', attempts=1, lease_owner='dead-host:1', lease_token='t-dead', locked_until=? WHERE id=?", [Date.now() - 1, id]);
    const consumer = fx.open({ lease: 400, jobs: [defineJob({ name: 'j', retry: { backoff: { type: 'fixed', delay: 1 } }, handler: () => 'recovered' })] });
    const expired = nextEvent(consumer.events$, (e) => e.job.id === id && e.event === 'job.expire');
    const done = nextEvent(consumer.events$, (e) => e.job.id === id && e.to === 'completed');
    await consumer.start();
    const e = await expired;
    expect(e.to).toBe('failed');
    expect(e.error).toMatchObject({ name: 'LeaseExpiredError', code: 'LJ_ERR_LEASE_LOST' });
    await done;
    expect(await consumer.getJob(id)).toMatchObject({ state: 'completed', attempts: 2, result: 'recovered' });
  });

  it('a queue that starts expires the leases that ran out while no worker was up at once, not a sweep interval later', async () => {
    const clock = createVirtualClock(Date.now());
    const producer = fx.open({ clock });
    const { id } = await producer.enqueue('j', {});
    await fx.sql("UPDATE jobs SET state='processing', attempts=1, lease_owner='dead-host:1', lease_token='t-dead', locked_until=? WHERE id=?", [clock.now() - 1, id]);
    // A 30 s lease sweeps every 5 s; the virtual clock never gets there.
    const consumer = fx.open({ clock, lease: 30_000, jobs: [defineJob({ name: 'j', retry: { backoff: { type: 'fixed', delay: 0 } }, handler: () => 'recovered' })] });
    const done = nextEvent(consumer.events$, (e) => e.job.id === id && e.to === 'completed');
    await consumer.start();
    for (let i = 0; i < 20 && (await consumer.getJob(id)).state !== 'completed'; i++) await clock.advance(10);
    await done;
    expect((await consumer.history(id)).map((h) => h.event)).toContain('job.expire');
  });

  it('an expired lease on the last attempt makes the job dead', async () => {
    const producer = fx.open();
    const { id } = await producer.enqueue('j', {}, { retry: { attempts: 1 } });
    await fx.sql("UPDATE jobs SET state='processing', attempts=1, lease_token='t', locked_until=0 WHERE id=?", [id]);
    const consumer = fx.open({ lease: 400, jobs: [defineJob({ name: 'j', handler: () => 'never' })] });
    const dead = nextEvent(consumer.events$, (e) => e.job.id === id && e.to === 'dead');
    await consumer.start();
    expect((await dead).event).toBe('job.expire');
  });

  it('a worker whose lease was taken over cannot settle the job, and its signal aborts', async () => {
    let abortReason: unknown;
    let releaseA!: () => void;
    const a = fx.open({
      lease: 400,
      jobs: [
        defineJob({
          name: 'j',
          handler: async (_p, { signal }) => {
            signal.addEventListener('abort', () => (abortReason = signal.reason));
            await new Promise<void>((r) => (releaseA = r));
            return 'from-a';
          },
        }),
      ],
    });
    const { id } = await a.enqueue('j', {});
    const claimed = nextEvent(a.events$, (e) => e.job.id === id && e.to === 'processing');
    await a.start();
    await claimed;
    // Another process expired and re-ran it (as after a long pause of this one).
    await fx.sql("UPDATE jobs SET state='completed', result='\"from-b\"', lease_token=NULL, locked_until=NULL WHERE id=?", [id]);
    await waitFor(() => abortReason !== undefined, 5000);
    expect(abortReason).toBe('lease');
    releaseA();
    await a.stop();
    expect(await a.getJob(id)).toMatchObject({ state: 'completed', result: 'from-b' });
    const history = await a.history(id);
    expect(history.filter((h) => h.event === 'job.complete')).toEqual([]);
  });
});

describe('compare-and-set on the version a decision was made on', () => {
  const request = (job: JobRecord, o: Partial<TransitionRequest> & Pick<TransitionRequest, 'to' | 'event'>): TransitionRequest => ({
    id: job.id, version: job.version, from: job.state, token: job.leaseToken, at: 2_000_000, attempts: job.attempts, lastError: null, ctx: null, ...o,
  });

  it('a lease expiry read before the holder renewed the lease does not land; one read after it ran out again does', async () => {
    const store = fx.store();
    try {
      const [{ id }] = (await store.insert([{ name: 'j', state: 'pending', payload: '{}', key: null, priority: 0, runAt: 1_000_000, retry: null, timeout: null }], 1_000_000)) as [InsertResult];
      const [claimed] = (await store.claim({ names: ['j'], limit: 1, owner: 'w', leaseMs: 1000, now: 1_000_000, rule: CLAIM_RULE })).jobs;
      // The sweeper reads the lease as run out …
      const [seen] = await store.expiredLeases(['j'], 1_001_500, 10);
      expect(seen?.id).toBe(id);
      // … then its holder renews it, and the sweeper's write comes after.
      expect(await store.heartbeat(id, claimed!.leaseToken, 1_010_000)).toBe(true);
      expect((await store.transition([request(seen!, { to: 'failed', event: 'job.expire', expiredBy: 1_001_500 })])).moved).toEqual([false]);
      // Nor does the delete an expiry into a state kept 0 ms would be.
      expect((await store.transition([request(seen!, { to: 'dead', event: 'job.expire', expiredBy: 1_001_500, purge: true })])).moved).toEqual([false]);
      expect(await store.get(id)).toMatchObject({ state: 'processing', leaseToken: claimed!.leaseToken });
      // Run out again: the expiry lands.
      expect((await store.transition([request(seen!, { to: 'failed', event: 'job.expire', expiredBy: 1_010_001 })])).moved).toEqual([true]);
    } finally {
      await store.close();
    }
  });

  it('a move decided on a job that has since gone round to the same state (no lease to tell them apart) does not land', async () => {
    const store = fx.store();
    try {
      const [{ id }] = (await store.insert([{ name: 'j', state: 'pending', payload: '{}', key: null, priority: 0, runAt: 1_000_000, retry: null, timeout: null }], 1_000_000)) as [InsertResult];
      const claim = async (now: number) => (await store.claim({ names: ['j'], limit: 1, owner: 'w', leaseMs: 1000, now, rule: CLAIM_RULE })).jobs;
      const [first] = await claim(1_000_000);
      expect((await store.transition([request(first!, { to: 'failed', event: 'job.fail', runAt: 1_000_300 })])).moved).toEqual([true]);
      const stale = (await store.get(id))!; // a due sweep reads the failed job …
      // … while another process promotes it, runs it, and it fails again.
      expect((await store.transition([request(stale, { to: 'pending', event: 'xstate.after.retryDelay.job.failed', token: null })])).moved).toEqual([true]);
      const [second] = await claim(1_000_400);
      expect((await store.transition([request(second!, { to: 'failed', event: 'job.fail', attempts: 2, runAt: 1_000_700 })])).moved).toEqual([true]);
      // The first sweep's promotion, decided on the first failure, matches state and (absent) lease, but not the version.
      expect((await store.transition([request(stale, { to: 'pending', event: 'xstate.after.retryDelay.job.failed', token: null })])).moved).toEqual([false]);
      expect(await store.get(id)).toMatchObject({ state: 'failed', attempts: 2, runAt: 1_000_700, version: stale.version + 3 });
      // Nor does a delete decided on it (retention 0).
      expect((await store.transition([request(stale, { to: 'cancelled', event: 'job.cancel', token: null, purge: true })])).moved).toEqual([false]);
      expect(await store.get(id)).toMatchObject({ state: 'failed', version: stale.version + 3 });
    } finally {
      await store.close();
    }
  });
});

