import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineJob, InvalidTransitionError } from '../../src/index.js';
import { TEST_STORE, useQueues } from '../helpers/queue-fixture.js';
import { tempDir } from '../helpers/temp-db.js';
import { events, nextEvent } from '../helpers/wait.js';

const fx = useQueues();

describe('retry, cancel and inspection', () => {
  it('retry sends a dead job back to pending with fresh attempts; retry of a live job is refused', async () => {
    let fail = true;
    const q = fx.open({
      jobs: [defineJob({ name: 'j', retry: { attempts: 1 }, handler: () => { if (fail) throw new Error('x'); return 'ok'; } })],
    });
    const { id } = await q.enqueue('j', {});
    const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead');
    await q.start();
    await dead;
    fail = false;
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    const retried = await q.retry(id);
    expect(['pending', 'processing', 'completed']).toContain(retried.state);
    await done;
    expect(await q.getJob(id)).toMatchObject({ state: 'completed', attempts: 1, result: 'ok' });
    const err = await q.retry(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidTransitionError);
    expect(err).toMatchObject({ code: 'LJ_ERR_INVALID_TRANSITION', state: 'completed', event: 'job.retry' });
  });

  it('a retry decided on a death the job has since gone past is refused: one user retry never runs the attempts twice', async () => {
    const a = fx.open();
    // b's write waits until a has retried the job and the job has run its attempt and died again.
    const inner = fx.store();
    let before: (() => Promise<void>) | undefined;
    const b = fx.open({
      store: {
        ...inner,
        transition: async (reqs) => {
          const hook = before;
          before = undefined;
          await hook?.();
          return inner.transition(reqs);
        },
      },
    });
    const { id } = await a.enqueue('j', {}, { retry: { attempts: 1 } });
    const dead = "UPDATE jobs SET state = 'dead', attempts = 1, version = version + 2 WHERE id = ?";
    await fx.sql(dead, [id]);
    before = async () => {
      await a.retry(id);
      await fx.sql(dead, [id]); // claimed, failed: dead again, two moves later
    };
    // b decided on the first death; the job it finds is dead again, but not the death it read.
    await expect(b.retry(id)).rejects.toBeInstanceOf(InvalidTransitionError);
    expect((await a.history(id)).filter((h) => h.event === 'job.retry')).toHaveLength(1);
    expect(await a.getJob(id)).toMatchObject({ state: 'dead', attempts: 1 });
    // A cancel still stands after the job moved on: it is decided again on the job as it is.
    await fx.sql("UPDATE jobs SET state = 'failed', version = version + 1 WHERE id = ?", [id]);
    const stale = await a.getJob(id);
    expect(stale.state).toBe('failed');
    expect(await b.cancel(id)).toMatchObject({ state: 'cancelled' });
  });

  it('cancel stops a pending job from ever running', async () => {
    let runs = 0;
    const q = fx.open({ jobs: [defineJob({ name: 'j', handler: () => { runs++; } })] });
    const a = await q.enqueue('j', 1, { delay: 50 });
    const b = await q.enqueue('j', 2, { delay: 50 });
    expect((await q.cancel(a.id)).state).toBe('cancelled');
    const done = nextEvent(q.events$, (e) => e.job.id === b.id && e.to === 'completed');
    await q.start();
    await done;
    expect(runs).toBe(1);
    expect((await q.getJob(a.id)).state).toBe('cancelled');
    await expect(q.cancel(a.id)).rejects.toMatchObject({ code: 'LJ_ERR_INVALID_TRANSITION' });
  });

  it('cancel of a running job aborts its handler and its late result is not written', async () => {
    let release!: () => void;
    const finished = new Promise<void>((r) => (release = r));
    let sawAbort = false;
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'long',
          handler: async (_p, { signal }) => {
            signal.addEventListener('abort', () => (sawAbort = true));
            await finished; // ignores the signal on purpose
            return 'late';
          },
        }),
      ],
    });
    const { id } = await q.enqueue('long', {});
    const running = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'processing');
    await q.start();
    await running;
    expect((await q.cancel(id)).state).toBe('cancelled');
    expect(sawAbort).toBe(true);
    release();
    await q.stop();
    const job = await q.getJob(id);
    expect(job.state).toBe('cancelled');
    expect(job.result).toBeUndefined();
  });

  it('runs delayed jobs no sooner than runAt, and higher priority first', async () => {
    const order: string[] = [];
    const q = fx.open({ concurrency: 1, jobs: [defineJob({ name: 'j', handler: (p: string) => { order.push(p); } })] });
    const t0 = Date.now();
    const late = await q.enqueue('j', 'late', { delay: 80 });
    await q.enqueue('j', 'low', { priority: -1 });
    await q.enqueue('j', 'normal');
    await q.enqueue('j', 'high', { priority: 5 });
    const started = nextEvent(q.events$, (e) => e.job.id === late.id && e.to === 'processing');
    const done = events(q.events$, (e) => e.to === 'completed', 4);
    await q.start();
    expect((await started).at.getTime() - t0).toBeGreaterThanOrEqual(80);
    await done;
    // The delayed job may come due before the others are done (a slow machine): it is not ranked among them.
    expect(order.filter((p) => p !== 'late')).toEqual(['high', 'normal', 'low']);
  });

  it('starts one claimed batch in priority order', async () => {
    const order: string[] = [];
    const q = fx.open({ concurrency: 3, jobs: [defineJob({ name: 'j', handler: (p: string) => { order.push(p); } })] });
    await q.enqueue('j', 'low', { priority: -1 });
    await q.enqueue('j', 'normal');
    const high = await q.enqueue('j', 'high', { priority: 5 });
    const done = nextEvent(q.events$, (e) => e.job.id === high.id && e.to === 'completed');
    await q.start();
    await done;
    expect(order).toEqual(['high', 'normal', 'low']);
  });

  it('a producer-only process enqueues names it cannot run; a consumer claims only its own names', async () => {
    const producer = fx.open();
    const a = await producer.enqueue('mine', 1);
    const b = await producer.enqueue('someone-else', 2);
    const consumer = fx.open({ jobs: [defineJob({ name: 'mine', handler: (n: number) => n + 1 })] });
    const done = nextEvent(consumer.events$, (e) => e.job.id === a.id && e.to === 'completed');
    await consumer.start();
    await done;
    await consumer.stop();
    expect((await producer.getJob(a.id)).result).toBe(2);
    expect((await producer.getJob(b.id)).state).toBe('pending');
    const stats = await producer.stats();
    expect(stats.byState).toEqual({ completed: 1, pending: 1 });
    expect(stats.byName['someone-else']).toEqual({ pending: 1 });
  });

  it('listJobs filters by state and name and pages with a cursor', async () => {
    const q = fx.open();
    for (let i = 0; i < 5; i++) await q.enqueue(i % 2 ? 'odd' : 'even', i);
    const odd = await q.listJobs({ name: 'odd' });
    expect(odd.map((j) => j.payload)).toEqual([1, 3]);
    const page1 = await q.listJobs({ limit: 2 });
    const page2 = await q.listJobs({ limit: 2, after: page1[1]!.id });
    expect([...page1, ...page2].map((j) => j.payload)).toEqual([0, 1, 2, 3]);
    expect(await q.listJobs({ state: 'completed' })).toEqual([]);
  });

  it('handlers report progress and heartbeats extend the lease', async () => {
    const q = fx.open({
      lease: 1000,
      jobs: [
        defineJob({
          name: 'p',
          handler: async (_x, ctx) => {
            await ctx.progress(40);
            const before = (await q.getJob(ctx.jobId)).progress;
            await ctx.heartbeat();
            return before;
          },
        }),
      ],
    });
    const { id } = await q.enqueue('p', {});
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.start();
    await done;
    expect(await q.getJob(id)).toMatchObject({ result: 40, progress: 40 });
  });

  it('a handler may destructure its context', async () => {
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'd',
          handler: async (_x, { jobId, name, attempt, signal, heartbeat, progress, log }) => {
            await progress(7);
            await heartbeat();
            log.info('destructured');
            return { jobId, name, attempt, aborted: signal.aborted };
          },
        }),
      ],
    });
    const { id } = await q.enqueue('d', {});
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to !== 'processing');
    await q.start();
    expect((await done).to).toBe('completed');
    expect(await q.getJob(id)).toMatchObject({ progress: 7, result: { jobId: id, name: 'd', attempt: 1, aborted: false } });
  });

  it('backup writes a consistent copy that opens on its own', async () => {
    const q = fx.open();
    await q.enqueueMany(Array.from({ length: 100 }, (_, i) => ({ name: 'b', payload: i })));
    const dir = tempDir();
    try {
      const dest = join(dir.dir, 'copy.db');
      if (TEST_STORE === 'postgres') {
        await expect(q.backup(dest)).rejects.toMatchObject({ code: 'LJ_ERR_DATABASE', message: expect.stringContaining('pg_dump') });
        return;
      }
      await q.backup(dest);
      const copy = new Database(dest, { readonly: true });
      expect(copy.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 100 });
      copy.close();
    } finally {
      dir.cleanup();
    }
  });
});
