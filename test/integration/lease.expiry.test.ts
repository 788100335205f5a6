import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
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
