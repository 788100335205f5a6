/**
 * A throttle window lives in its job's row, and retention does not end it
 * early: a job deleted by the move that finishes it (retention 0), by the
 * retention loop, or once a run that held it gives it back, stays while its
 * window is open, and goes once it has passed. A caller's remove ends the
 * window at once.
 */
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { untilOnClock } from '../helpers/wait.js';

const fx = useQueues();
const WINDOW = { key: 'k', ms: 60_000 };
const count = async (table: string) => Number(await fx.value(`SELECT count(*) FROM ${table}`));
/** The clock moved a second a look: a retention pass still reading when it last moved comes round again. */
const PASS_STEP = 1000;


describe('a throttle window outlives retention', () => {
  it('retention 0 and the retention loop keep a finished job while its window is open, and delete it after', async () => {
    const clock = createVirtualClock(Date.now());
    const q = fx.open({ clock, retention: { completed: 0, outcome: 1000 }, jobs: [defineJob({ name: 't', handler: () => 'ok' }), defineJob({ name: 'plain', handler: () => 'ok' })] });
    const first = await q.enqueue('t', 1, { throttle: WINDOW });
    const plain = await q.enqueue('plain', 1);
    await q.start();
    expect(await q.result(first.id)).toBe('ok');
    expect(await q.result(plain.id)).toBe('ok');
    // The throttled job stays; the other is gone, its outcome kept.
    expect(await count('jobs')).toBe(1);
    expect(await q.enqueue('t', 2, { throttle: WINDOW })).toEqual({ id: first.id, created: false, state: 'completed' });

    // A retention pass (it forgets the other's kept outcome after 1 s) spares the open window.
    await clock.advance(6000);
    await untilOnClock(clock, async () => (await count('job_outcomes')) === 0, 'the kept outcome forgotten', 20_000, PASS_STEP);
    expect(await q.enqueue('t', 3, { throttle: WINDOW })).toEqual({ id: first.id, created: false, state: 'completed' });
    expect(await count('jobs')).toBe(1);

    // Once the window has passed, retention deletes the job, and the key makes a new one.
    await clock.advance(WINDOW.ms);
    await clock.advance(6000);
    await untilOnClock(clock, async () => (await count('jobs')) === 0, 'the throttled job deleted after its window', 20_000, PASS_STEP);
    const next = await q.enqueue('t', 4, { throttle: WINDOW });
    expect(next.created).toBe(true);
    await q.stop();
  });

  it('retention 0 deletes the job after its window keeping its outcome, as the finishing move would have', async () => {
    const clock = createVirtualClock(Date.now());
    const q = fx.open({ clock, retention: { completed: 0, outcome: '1h' }, jobs: [defineJob({ name: 't', handler: () => 'ok' })] });
    const { id } = await q.enqueue('t', 1, { throttle: { key: 'k', ms: 2000 } });
    await q.start();
    expect(await q.result(id)).toBe('ok');
    await clock.advance(2000 + 6000);
    await untilOnClock(clock, async () => (await count('jobs')) === 0, 'the throttled job deleted after its window', 20_000, PASS_STEP);
    // Its outcome kept for `outcome` from when it finished: result() in another connection still settles.
    expect(await fx.open().result(id)).toBe('ok');
    expect(await count('job_outcomes')).toBe(1);
    await q.stop();
  });

  it('a job cancelled while it runs (retention 0) stays once the run gives it back, while its window is open', async () => {
    const clock = createVirtualClock(Date.now());
    let release!: () => void;
    const ran = new Promise<void>((started) => {
      release = started;
    });
    let finish!: () => void;
    const handler = () => {
      release();
      return new Promise<void>((done) => {
        finish = done;
      });
    };
    const q = fx.open({ clock, retention: { cancelled: 0 }, jobs: [defineJob({ name: 't', handler })] });
    const first = await q.enqueue('t', 1, { throttle: WINDOW });
    await q.start();
    await ran;
    await q.cancel(first.id);
    finish();
    // Stopping waits for the run, which gives its hold back.
    await q.stop();
    expect((await q.getJob(first.id)).state).toBe('cancelled');
    expect(await q.enqueue('t', 2, { throttle: WINDOW })).toEqual({ id: first.id, created: false, state: 'cancelled' });
  });

  it('a queue that only takes jobs by hand deletes the throttled job once its window has passed', async () => {
    const clock = createVirtualClock(Date.now());
    const q = fx.open({ clock, retention: { completed: 0 }, jobs: [defineJob({ name: 't', handler: () => 'ok' })] });
    const first = await q.enqueue('t', 1, { throttle: WINDOW });
    await q.complete((await q.take())!, 'done');
    expect(await count('jobs')).toBe(1);
    await clock.advance(WINDOW.ms + 6000);
    // A take loop goes on: its sweeps run the retention pass a started queue runs.
    expect(await q.take()).toBeNull();
    await untilOnClock(clock, async () => (await count('jobs')) === 0, 'the throttled job deleted by the take loop', 20_000, PASS_STEP);
    expect((await q.enqueue('t', 2, { throttle: WINDOW })).id).not.toBe(first.id);
    await q.close();
  });

  it("a caller's remove ends the window at once", async () => {
    const q = fx.open({ jobs: [defineJob({ name: 't', handler: () => 'ok' })] });
    const first = await q.enqueue('t', 1, { throttle: WINDOW });
    await q.remove(first.id);
    expect((await q.enqueue('t', 2, { throttle: WINDOW })).created).toBe(true);
  });
});
