/**
 * Flows and batches on either store: a parent waits in `waiting-children`
 * until its children have finished, fails with a failed child or goes on,
 * as its policy says; nested flows; a batch's onComplete job; all rows in
 * one transaction.
 */
import { describe, expect, it } from 'vitest';
import { defineJob, type Job, type Queue } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { waitFor } from '../helpers/wait.js';

const fx = useQueues();

/** Child runs held until the test lets them go, by payload tag. */
function gates() {
  const held = new Map<string, () => void>();
  const ran: string[] = [];
  return {
    ran,
    held,
    handler: async ({ tag, fail }: { tag: string; fail?: boolean }) => {
      ran.push(tag);
      await new Promise<void>((release) => held.set(tag, release));
      held.delete(tag);
      if (fail) throw new Error(`${tag} failed`);
      return { tag };
    },
    release(tag: string) {
      const go = held.get(tag);
      if (!go) throw new Error(`${tag} is not running`);
      go();
    },
  };
}

const state = async (q: Queue, id: number) => (await q.getJob(id)).state;
const waitState = async (q: Queue, id: number, want: string) => {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const s = await state(q, id);
    if (s === want) return;
    if (Date.now() > deadline) throw new Error(`job ${id} is ${s}, not ${want}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

function setup(extra: { onParent?: (children: Job[], counts: Record<string, number>) => void } = {}) {
  const g = gates();
  const parentRuns: Array<{ children: Job[]; counts: Record<string, number> }> = [];
  const child = defineJob({ name: 'child', retry: { attempts: 1 }, handler: g.handler });
  const parent = defineJob({
    name: 'parent',
    handler: async (_payload: unknown, ctx) => {
      const children = await ctx.children();
      const counts = await ctx.childCounts();
      parentRuns.push({ children, counts });
      extra.onParent?.(children, counts);
      return { seen: children.map((c) => c.id) };
    },
  });
  const q = fx.open({ jobs: [child, parent], concurrency: 8, pollInterval: 20 });
  return { q, g, parentRuns };
}

describe('enqueueFlow', () => {
  it('the parent waits, holding no worker, until every child has finished; then it reads their results', async () => {
    const { q, g, parentRuns } = setup();
    const flow = await q.enqueueFlow({
      name: 'parent',
      payload: {},
      children: ['a', 'b', 'c'].map((tag) => ({ name: 'child', payload: { tag } })),
    });
    expect(flow.state).toBe('waiting-children');
    expect(flow.children.map((c) => c.state)).toEqual(['pending', 'pending', 'pending']);
    expect((await q.getJob(flow.children[0]!.id)).parentId).toBe(flow.id);
    expect((await q.getJob(flow.id)).children).toEqual({ left: 3, failed: 0, onChildFailure: 'fail' });
    await q.start();
    await waitFor(() => g.held.size === 3);
    g.release('a');
    g.release('b');
    await waitState(q, flow.children[1]!.id, 'completed');
    expect(await state(q, flow.id)).toBe('waiting-children');
    expect(parentRuns).toHaveLength(0);
    g.release('c');
    await waitState(q, flow.id, 'completed');
    expect(parentRuns).toHaveLength(1);
    const [run] = parentRuns;
    expect(run!.children.map((c) => [c.id, c.state, c.result])).toEqual(
      flow.children.map((c, i) => [c.id, 'completed', { tag: ['a', 'b', 'c'][i] }]),
    );
    expect(run!.counts).toEqual({ completed: 3 });
    const history = (await q.history(flow.id)).map((t) => `${t.from ?? ''}>${t.to}:${t.event}`);
    expect(history).toEqual(['>waiting-children:job.enqueue', 'waiting-children>pending:job.children', 'pending>processing:job.claim', 'processing>completed:job.complete']);
    // The last child's finish and the parent's move are one write: the parent left waiting at the child's time.
    const childDone = (await q.history(flow.children[2]!.id)).at(-1)!.at.getTime();
    expect((await q.history(flow.id))[1]!.at.getTime()).toBe(childDone);
  });

  it("onChildFailure 'fail' (the default): a dead child fails the parent at once, with the child named", async () => {
    const { q, g, parentRuns } = setup();
    const flow = await q.enqueueFlow({ name: 'parent', payload: {}, children: [{ name: 'child', payload: { tag: 'x', fail: true } }, { name: 'child', payload: { tag: 'y' } }] });
    await q.start();
    await waitFor(() => g.held.size === 2);
    g.release('x');
    await waitState(q, flow.id, 'dead');
    const parent = await q.getJob(flow.id);
    expect(parent.lastError).toMatchObject({ name: 'ChildFailedError', code: 'LJ_ERR_CHILD_FAILED' });
    expect(parent.lastError!.message).toContain(`child job ${flow.children[0]!.id} (child) ended dead`);
    expect(parent.attempts).toBe(0);
    // The other child still runs to its end; the parent never ran.
    g.release('y');
    await waitState(q, flow.children[1]!.id, 'completed');
    expect(await state(q, flow.id)).toBe('dead');
    expect(parentRuns).toHaveLength(0);
  });

  it("onChildFailure 'continue': the parent runs once all have finished and sees the dead child", async () => {
    const { q, g, parentRuns } = setup();
    const flow = await q.enqueueFlow({
      name: 'parent',
      payload: {},
      onChildFailure: 'continue',
      children: [{ name: 'child', payload: { tag: 'x', fail: true } }, { name: 'child', payload: { tag: 'y' } }],
    });
    await q.start();
    await waitFor(() => g.held.size === 2);
    g.release('x');
    await waitState(q, flow.children[0]!.id, 'dead');
    expect(await state(q, flow.id)).toBe('waiting-children');
    g.release('y');
    await waitState(q, flow.id, 'completed');
    expect(parentRuns[0]!.counts).toEqual({ completed: 1, dead: 1 });
    expect(parentRuns[0]!.children[0]!.lastError?.message).toBe('x failed');
  });

  it('a dead child retried counts as unfinished again: the parent waits for its new run', async () => {
    const { q, g, parentRuns } = setup();
    const flow = await q.enqueueFlow({
      name: 'parent',
      payload: {},
      onChildFailure: 'continue',
      children: [{ name: 'child', payload: { tag: 'x', fail: true } }, { name: 'child', payload: { tag: 'y' } }],
    });
    await q.start();
    await waitFor(() => g.held.size === 2);
    g.release('x');
    await waitState(q, flow.children[0]!.id, 'dead');
    await q.retry(flow.children[0]!.id);
    expect((await q.getJob(flow.id)).children).toMatchObject({ left: 2, failed: 0 });
    await waitFor(() => g.held.has('x'));
    g.release('y');
    await waitState(q, flow.children[1]!.id, 'completed');
    // x runs again (and fails again): only then has every child finished.
    expect(await state(q, flow.id)).toBe('waiting-children');
    g.release('x');
    await waitState(q, flow.id, 'completed');
    expect(parentRuns).toHaveLength(1);
  });

  it('nested flows: a child with children of its own finishes only after them; a failure travels up', async () => {
    const { q, g, parentRuns } = setup();
    const flow = await q.enqueueFlow({
      name: 'parent',
      payload: { level: 0 },
      children: [
        { name: 'parent', payload: { level: 1 }, children: [{ name: 'child', payload: { tag: 'deep' } }] },
        { name: 'child', payload: { tag: 'shallow' } },
      ],
    });
    const middle = flow.children[0]!;
    expect([flow.state, middle.state, middle.children[0]!.state]).toEqual(['waiting-children', 'waiting-children', 'pending']);
    await q.start();
    await waitFor(() => g.held.size === 2);
    g.release('shallow');
    await waitState(q, flow.children[1]!.id, 'completed');
    expect(await state(q, flow.id)).toBe('waiting-children');
    g.release('deep');
    await waitState(q, flow.id, 'completed');
    // The middle parent ran before the top one.
    expect(parentRuns.map((r) => r.children.length)).toEqual([1, 2]);

    const failing = await q.enqueueFlow({
      name: 'parent',
      payload: {},
      children: [{ name: 'parent', payload: {}, children: [{ name: 'child', payload: { tag: 'bad', fail: true } }] }],
    });
    await waitFor(() => g.held.has('bad'));
    g.release('bad');
    await waitState(q, failing.id, 'dead');
    expect(await state(q, failing.children[0]!.id)).toBe('dead');
    expect((await q.getJob(failing.id)).lastError!.message).toContain(`child job ${failing.children[0]!.id} (parent) ended dead`);
  });

  it('a parent without children is a plain job; a cancelled waiting parent stays cancelled when its children end', async () => {
    const { q, g, parentRuns } = setup();
    const lone = await q.enqueueFlow({ name: 'parent', payload: {}, children: [] });
    expect(lone.state).toBe('pending');
    const flow = await q.enqueueFlow({ name: 'parent', payload: {}, children: [{ name: 'child', payload: { tag: 'z' } }] });
    await q.cancel(flow.id);
    await q.start();
    await waitState(q, lone.id, 'completed');
    await waitFor(() => g.held.has('z'));
    g.release('z');
    await waitState(q, flow.children[0]!.id, 'completed');
    expect(await state(q, flow.id)).toBe('cancelled');
    expect(parentRuns).toHaveLength(1);
  });

  it('checks every job before writing any: a bad child leaves nothing stored', async () => {
    const { q } = setup();
    await q.ping(); // the database is set up
    const bad = [
      { name: 'parent', payload: {}, children: [{ name: 'child', payload: {} }, { name: 'child', payload: {}, options: { delay: -1 } }] },
      { name: 'parent', payload: {}, children: [{ name: 'child', payload: {}, options: { key: 'k' } }] },
      { name: 'parent', payload: {}, children: [{ name: 'child', payload: {}, options: { unique: 'u' } }] },
      { name: 'parent', payload: {}, onChildFailure: 'maybe', children: [] },
      { name: 'parent', payload: {}, children: [{ name: 'child', payload: {}, extra: 1 }] },
      { name: 'parent', payload: {}, children: 'no' },
    ];
    for (const flow of bad) {
      await expect(q.enqueueFlow(flow as never)).rejects.toMatchObject({ code: expect.stringMatching(/^LJ_ERR_(VALIDATION|UNKNOWN_OPTION)$/) });
    }
    expect(await fx.value('SELECT count(*) FROM jobs')).toBe(0);
  });
});

describe('enqueueBatch', () => {
  it('runs the onComplete job once every item has finished, with the counts per final state', async () => {
    const g = gates();
    const seen: Array<{ counts: Record<string, number>; payload: unknown }> = [];
    const item = defineJob({ name: 'item', retry: { attempts: 1 }, handler: g.handler });
    const done = defineJob({
      name: 'batch-done',
      handler: async (payload: { batch: string }, ctx) => {
        seen.push({ counts: await ctx.childCounts(), payload });
      },
    });
    const q = fx.open({ jobs: [item, done], concurrency: 8, pollInterval: 20 });
    const items = ['1', '2', '3', '4'].map((tag) => ({ name: 'item', payload: { tag, fail: tag === '3' } }));
    const batch = await q.enqueueBatch(items, { onComplete: { name: 'batch-done', payload: { batch: 'b1' } } });
    expect(batch.ids).toHaveLength(4);
    expect(await state(q, batch.id)).toBe('waiting-children');
    await q.cancel(batch.ids[3]!);
    await q.start();
    await waitFor(() => g.held.size === 3);
    for (const tag of ['1', '2', '3']) g.release(tag);
    await waitState(q, batch.id, 'completed');
    expect(seen).toEqual([{ counts: { completed: 2, dead: 1, cancelled: 1 }, payload: { batch: 'b1' } }]);
  });

  it('refuses a batch without onComplete', async () => {
    const q = fx.open({ jobs: [] });
    await q.ping(); // the database is set up
    await expect(q.enqueueBatch([{ name: 'x', payload: 1 }], {} as never)).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await expect(q.enqueueBatch([{ name: 'x', payload: 1, extra: 1 } as never], { onComplete: { name: 'y', payload: 0 } })).rejects.toMatchObject({ code: 'LJ_ERR_UNKNOWN_OPTION' });
    expect(await fx.value('SELECT count(*) FROM jobs')).toBe(0);
  });
});
