/**
 * Retention when processes know different things: a job name's own rule is
 * kept in the store, so every started queue leaves it out of its queue-wide
 * age and enforces it (a rule of 0 included, on jobs another process
 * finished or cancelled); kept outcomes are forgotten by any started queue;
 * and a flow child stays while its parent has yet to read it.
 */
import { describe, expect, it } from 'vitest';
import { declareJob, defineJob, type HandlerContext } from '../../src/index.js';
import { systemClock, type Clock } from '../../src/lib/clock.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events, waitFor } from '../helpers/wait.js';

const fx = useQueues();

const exists = async (id: number) => Number(await fx.value('SELECT count(*) FROM jobs WHERE id = ?', [id])) === 1;
const kept = async (id: number) => Number(await fx.value('SELECT count(*) FROM job_outcomes WHERE id = ?', [id])) === 1;
const later = () => {
  const c = { offset: 0 };
  const clock: Clock = { ...systemClock, now: () => Date.now() + c.offset };
  return { c, clock };
};

describe('retention across processes', () => {
  it("a name's own rule of 0 deletes a job another process cancelled without knowing it", async () => {
    const worker = fx.open({ jobs: [defineJob({ name: 'x', retention: { cancelled: 0 }, handler: () => 1 })] });
    const producer = fx.open({ jobs: [declareJob('x')] });
    const { id } = await producer.enqueue('x', {}, { delay: 3_600_000 });
    await producer.cancel(id);
    expect(await exists(id)).toBe(true);
    await worker.start();
    await waitFor(async () => !(await exists(id)));
  });

  it("a queue-wide age passes over a name with a rule of its own, though another process defines it", async () => {
    const w = later();
    const owner = fx.open({ clock: w.clock, retention: { completed: '1h' }, jobs: [defineJob({ name: 'x', retention: { completed: '30d' }, handler: () => 'x' })] });
    const { id: x } = await owner.enqueue('x', null);
    const done = events(owner.events$, (e) => e.to === 'completed', 1);
    await owner.start(); // saves x's rule, and runs x
    await done;
    await owner.stop();
    const p = later();
    const other = fx.open({ clock: p.clock, retention: { completed: '1h' }, jobs: [defineJob({ name: 'y', handler: () => 'y' })] });
    const { id: y } = await other.enqueue('y', null);
    const yDone = events(other.events$, (e) => e.to === 'completed', 1);
    await other.start();
    await yDone;
    await other.stop();
    p.c.offset = 2 * 3_600_000;
    await other.start();
    await waitFor(async () => !(await exists(y))); // the pass ran: y is past its hour
    await other.stop();
    expect(await exists(x)).toBe(true);
  });

  it('kept outcomes are forgotten by any started queue, with or without rules of its own', async () => {
    const producer = fx.open({ retention: { cancelled: 0, outcome: '1s' }, jobs: [declareJob('z')] });
    const { id } = await producer.enqueue('z', null, { delay: 3_600_000 });
    await producer.cancel(id);
    expect(await kept(id)).toBe(true);
    const w = later();
    w.c.offset = 86_400_000;
    const worker = fx.open({ clock: w.clock, jobs: [defineJob({ name: 'other', handler: () => 1 })] });
    await worker.start();
    await waitFor(async () => !(await kept(id)));
    expect(Number(await fx.value('SELECT count(*) FROM job_history WHERE job_id = ?', [id]))).toBe(0);
  });

  it("a count keeps a flow child whose parent has yet to read it; once the parent finished, the count holds", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let seen: unknown[] = [];
    const worker = fx.open({
      concurrency: 4,
      jobs: [
        defineJob({ name: 'child', retention: { completed: { count: 1 } }, handler: async (p: { slow: boolean; n: number }) => (p.slow ? gate.then(() => p.n) : p.n) }),
        defineJob({ name: 'parent', handler: async (_p: null, ctx: HandlerContext) => { seen = (await ctx.children()).map((c) => c.result); } }),
      ],
    });
    // Another process's passes enforce child's rule (kept in the store); a cancelled job it deletes at once marks each pass done.
    const sweeper = fx.open({ retention: { cancelled: 0 }, jobs: [defineJob({ name: 'noop', handler: () => 1 })] });
    const pass = async () => {
      const { id } = await worker.enqueue('noop', null, { delay: 3_600_000 });
      await worker.cancel(id);
      await sweeper.start();
      await waitFor(async () => !(await exists(id))); // completed's tasks run before cancelled's
      await sweeper.stop();
    };
    const flow = await worker.enqueueFlow({ name: 'parent', payload: null, children: [0, 1, 2, 3].map((n) => ({ name: 'child', payload: { slow: n === 3, n } })) });
    const three = events(worker.events$, (e) => e.to === 'completed' && e.job.name === 'child', 3);
    const done = events(worker.events$, (e) => e.to === 'completed' && e.job.name === 'parent', 1);
    await worker.start();
    await three;
    // The worker saves child's rule as its first retention pass begins.
    await waitFor(async () => (await fx.sql('SELECT name FROM name_retention')).length === 1);
    await pass();
    // The three finished children stay: their parent still waits for the fourth.
    expect(await Promise.all(flow.children.map((c) => exists(c.id)))).toEqual([true, true, true, true]);
    release();
    await done;
    expect(seen).toEqual([0, 1, 2, 3]);
    // The parent has its results: a pass keeps the newest child only.
    await pass();
    expect((await Promise.all(flow.children.map((c) => exists(c.id)))).filter(Boolean)).toHaveLength(1);
  });
});
