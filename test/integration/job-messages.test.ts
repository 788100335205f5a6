/**
 * Jobs that wait for messages: ctx.waitFor parks a job in waiting-message
 * (no worker, no attempt spent) until queue.signal, from another connection,
 * puts a message on its topic in the job's mailbox; the job runs again from
 * the top, its steps replayed, and gets the message. Messages sent before a
 * wait are kept and taken in order; a received one is replayed, never taken
 * again; a wait times out to null; finished and missing jobs refuse messages.
 */
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob, JobNotFoundError, JobState, type Queue } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { waitFor } from '../helpers/wait.js';

const fx = useQueues();

const stateOf = async (q: Queue, id: number) => (await q.getJob(id)).state;
/** Messages waiting in the job's mailbox (not yet taken by a wait). */
const mailbox = async (id: number) => Number(await fx.value(`SELECT count(*) FROM job_messages WHERE job_id = ${id} AND taken_by IS NULL`));

describe('ctx.waitFor and queue.signal', () => {
  it('parks the job holding no worker until a message from another connection wakes it; its steps replay and it gets the message', async () => {
    let charged = 0;
    const worker = fx.open({
      concurrency: 1,
      jobs: [
        defineJob({
          name: 'order',
          handler: async (payload: { order: string }, ctx) => {
            const charge = await ctx.step('charge', () => {
              charged++;
              return `ch_${payload.order}`;
            });
            const paid = await ctx.waitFor<{ status: string }>('paid');
            return { charge, paid };
          },
        }),
      ],
    });
    const { id } = await worker.enqueue('order', { order: '42' }, { key: 'order:42' });
    await worker.start();
    await waitFor(async () => (await stateOf(worker, id)) === JobState.waitingMessage);
    // Holding no worker: another job runs on the only one meanwhile.
    const other = await worker.enqueue('order', { order: '43' });
    await waitFor(async () => (await stateOf(worker, other.id)) === JobState.waitingMessage);
    expect((await worker.getJob(id)).attempts).toBe(0);

    const caller = fx.open();
    expect(await caller.signal({ key: 'order:42' }, 'paid', { status: 'succeeded' })).toEqual({ id, woke: true });
    expect(await worker.result(id, { timeout: 20_000 })).toEqual({ charge: 'ch_42', paid: { status: 'succeeded' } });
    expect(charged).toBe(2); // once per order: the woken run replayed its step
    expect((await worker.history(id)).map((h) => `${h.from ?? '·'}→${h.to} ${h.event}`)).toEqual([
      '·→pending job.enqueue',
      'pending→processing job.claim',
      'processing→waiting-message job.wait',
      'waiting-message→pending job.message',
      'pending→processing job.claim',
      'processing→completed job.complete',
    ]);
    expect(await mailbox(id)).toBe(0);
    await worker.stop();
  });

  it('keeps messages sent before the wait in the mailbox, taken in order per topic, and never takes one twice (a retry replays it)', async () => {
    const runs: unknown[][] = [];
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'collect',
          retry: { attempts: 2, backoff: { type: 'fixed', delay: 1 } },
          handler: async (_: unknown, ctx) => {
            const got = [await ctx.waitFor('a'), await ctx.waitFor('b'), await ctx.waitFor('a')];
            runs.push(got);
            if (runs.length === 1) throw new Error('fails after taking them');
            return got;
          },
        }),
      ],
    });
    const { id } = await q.enqueue('collect', {});
    for (const [topic, data] of [['a', 1], ['b', 'x'], ['a', 2], ['a', 3]] as const) expect(await q.signal(id, topic, data)).toEqual({ id, woke: false });
    expect(await mailbox(id)).toBe(4);
    await q.start();
    expect(await q.result(id, { timeout: 20_000 })).toEqual([1, 'x', 2]);
    // The retry got the same messages back; the fourth stays for a later wait.
    expect(runs).toEqual([[1, 'x', 2], [1, 'x', 2]]);
    expect(await fx.sql<{ topic: string; data: string }>(`SELECT topic, data FROM job_messages WHERE job_id = ${id} AND taken_by IS NULL`)).toEqual([{ topic: 'a', data: '3' }]);
    await q.stop();
  });

  it('sends a message once under its key: a sender that tries again, before or after a wait took it, is told it was a duplicate', async () => {
    const got: unknown[] = [];
    const q = fx.open({ jobs: [defineJob({ name: 'pay', handler: async (_: unknown, ctx) => got.push(await ctx.waitFor('paid'), await ctx.waitFor('paid')) })] });
    const { id } = await q.enqueue('pay', {});
    expect(await q.signal(id, 'paid', { n: 1 }, { key: 'evt_1' })).toEqual({ id, woke: false });
    expect(await q.signal(id, 'paid', { n: 1 }, { key: 'evt_1' })).toEqual({ id, woke: false, duplicate: true });
    await q.start();
    // The first wait took it; the second waits.
    await waitFor(async () => (await stateOf(q, id)) === JobState.waitingMessage);
    expect(await q.signal(id, 'paid', { n: 1 }, { key: 'evt_1' })).toEqual({ id, woke: false, duplicate: true });
    expect(await q.signal(id, 'paid', { n: 2 }, { key: 'evt_2' })).toEqual({ id, woke: true });
    await q.result(id, { timeout: 20_000 });
    expect(got).toEqual([{ n: 1 }, { n: 2 }]);
    await expect(q.signal(id, 'paid', 1, { key: 'x'.repeat(1025) })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await q.stop();
  });

  it('keeps at most 1,000 messages a job has not taken: one more is refused with LJ_ERR_MAILBOX_FULL, until the job takes some', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'slow-reader', handler: async (_: unknown, ctx) => ctx.waitFor('t') })] });
    const { id } = await q.enqueue('slow-reader', {});
    for (let i = 0; i < 1000; i++) await q.signal(id, i % 2 === 0 ? 't' : 'u', i);
    await expect(q.signal(id, 't', 'one more')).rejects.toMatchObject({ code: 'LJ_ERR_MAILBOX_FULL' });
    expect(await mailbox(id)).toBe(1000);
    await q.start();
    expect(await q.result(id, { timeout: 20_000 })).toBe(0);
    await q.stop();
    // It took one: room for one more (its mailbox stays with it, finished or not; a finished job takes none).
    expect(await mailbox(id)).toBe(999);
  });

  it('refuses a second wait while one has not returned (a race of two topics would park on one and miss the other)', async () => {
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'either',
          retry: { attempts: 1 },
          handler: async (_: unknown, ctx) => Promise.race([ctx.waitFor('approved'), ctx.waitFor('rejected')]),
        }),
      ],
    });
    const { id } = await q.enqueue('either', {});
    await q.start();
    await expect(q.result(id, { timeout: 20_000 })).rejects.toMatchObject({ code: 'LJ_ERR_JOB_FAILED' });
    expect((await q.getJob(id)).lastError?.message).toMatch(/one topic at a time/);
    await expect(q.signal({ key: 'nobody' }, 't', 1)).rejects.toBeInstanceOf(JobNotFoundError);
    await q.stop();
  });

  it('wakes a job left parked with its message in the mailbox (a wake a dead process never made) at the next sweep', async () => {
    const q = fx.open({ lease: 400, jobs: [defineJob({ name: 'parked', handler: async (_: unknown, ctx) => ctx.waitFor('go') })] });
    const { id } = await q.enqueue('parked', {});
    await q.start();
    await waitFor(async () => (await stateOf(q, id)) === JobState.waitingMessage);
    // Stored as a signal stores it, with no wake after it.
    await fx.sql(`INSERT INTO job_messages (job_id, topic, data, sent_at) VALUES (${id}, 'go', '"late"', ${Date.now()})`);
    expect(await q.result(id, { timeout: 20_000 })).toBe('late');
    await q.stop();
  });

  it('gives null once the timeout passes with no message, and the same null on a replay', async () => {
    const got: unknown[] = [];
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'approval',
          retry: { attempts: 2, backoff: { type: 'fixed', delay: 500 } },
          handler: async (_: unknown, ctx) => {
            got.push(await ctx.waitFor('approved', { timeout: 300 }));
            if (got.length === 1) throw new Error('once more');
            return got.at(-1);
          },
        }),
      ],
    });
    const { id } = await q.enqueue('approval', {});
    await q.start();
    await waitFor(async () => (await stateOf(q, id)) === JobState.waitingMessage);
    expect((await q.getJob(id)).runAt!.getTime()).toBeGreaterThan(Date.now());
    // Timed out, then failed: a message sent while the retry waits out its backoff is kept, not replayed.
    await waitFor(async () => (await stateOf(q, id)) === JobState.failed);
    expect(got).toEqual([null]);
    expect(await q.signal(id, 'approved', true)).toEqual({ id, woke: false });
    expect(await q.result(id, { timeout: 20_000 })).toBeNull();
    expect(got).toEqual([null, null]);
    expect(await mailbox(id)).toBe(1);
    await q.stop();
  });

  it('refuses a message for a finished job, a missing one, an unknown key and a bad topic, storing nothing', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'quick', handler: async () => 'done' })] });
    const { id } = await q.enqueue('quick', {}, { key: 'k1' });
    await q.start();
    await q.result(id, { timeout: 20_000 });
    await expect(q.signal(id, 't', 1)).rejects.toMatchObject({ code: 'LJ_ERR_JOB_FINISHED', jobId: id, state: 'completed' });
    await expect(q.signal({ key: 'k1' }, 't', 1)).rejects.toMatchObject({ code: 'LJ_ERR_JOB_FINISHED' });
    await expect(q.signal(id + 100, 't', 1)).rejects.toMatchObject({ code: 'LJ_ERR_JOB_NOT_FOUND' });
    await expect(q.signal({ key: 'nobody' }, 't', 1)).rejects.toMatchObject({ code: 'LJ_ERR_JOB_NOT_FOUND' });
    for (const topic of ['', 'x'.repeat(151), 'a\u0000b', 7]) await expect(q.signal(id, topic as string, 1)).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await expect(q.signal(id, 't', () => 1)).rejects.toMatchObject({ code: 'LJ_ERR_PAYLOAD_NOT_JSON' });
    expect(Number(await fx.value('SELECT count(*) FROM job_messages'))).toBe(0);
    await q.stop();
  });

  it('cancels a waiting job; removing a job takes its mailbox with it', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'waits', handler: async (_: unknown, ctx) => ctx.waitFor('never') })] });
    const { id } = await q.enqueue('waits', {});
    await q.signal(id, 'other', 'kept');
    await q.start();
    await waitFor(async () => (await stateOf(q, id)) === JobState.waitingMessage);
    expect((await q.getJob(id)).runAt!.getTime()).toBe(8_640_000_000_000_000); // no timeout: as late as a date goes
    expect((await q.cancel(id)).state).toBe('cancelled');
    await expect(q.signal(id, 'never', 1)).rejects.toMatchObject({ code: 'LJ_ERR_JOB_FINISHED' });
    expect(await mailbox(id)).toBe(1);
    await q.remove(id);
    expect(Number(await fx.value(`SELECT count(*) FROM job_messages WHERE job_id = ${id}`))).toBe(0);
    await q.stop();
  });
  it('starts a job woken while its last run still writes the park, as soon as that run ends (not at the next claim pass)', async () => {
    // On a virtual clock no poll or idle pass ever comes: only the end of the run can start the woken job.
    const clock = createVirtualClock(Date.now());
    const inner = fx.store();
    let parked!: () => void;
    const parkedOnce = new Promise<void>((resolve) => (parked = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const q = fx.open({
      clock,
      store: {
        ...inner,
        // The park commits; its answer comes back once the gate opens: the run stays alive meanwhile.
        transition: async (reqs) => {
          const out = await inner.transition(reqs);
          if (reqs.some((r) => r.to === JobState.waitingMessage)) {
            parked();
            await gate;
          }
          return out;
        },
      },
      jobs: [defineJob({ name: 'w', handler: async (_: unknown, ctx) => ctx.waitFor('go') })],
    });
    const { id } = await q.enqueue('w', {});
    await q.start();
    await parkedOnce;
    expect(await q.signal(id, 'go', 7)).toEqual({ id, woke: true });
    // Claimed again at once, while the run before holds its worker's place in the buffer.
    await waitFor(async () => (await stateOf(q, id)) === JobState.processing);
    release();
    await waitFor(async () => (await stateOf(q, id)) === JobState.completed);
    expect((await q.getJob(id)).result).toBe(7);
  });
});
