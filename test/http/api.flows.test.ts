/**
 * Flows and batches over HTTP: `POST /v1/flows` stores a parent with its
 * children (nested) in one transaction and answers its ids in its shape;
 * `POST /v1/batches` stores the items and one onComplete job; the parent runs
 * once its children have finished. Bad input is a 400 and stores nothing.
 */
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { useServers } from '../helpers/http-server.js';
import { waitFor } from '../helpers/wait.js';

const serve = useServers();

describe('POST /v1/flows', () => {
  it('stores the tree in one go, answers its ids, and the parent runs after its children', async () => {
    const seen: unknown[] = [];
    const child = defineJob({ name: 'child', handler: async ({ n }: { n: number }) => n * 10 });
    const parent = defineJob({
      name: 'parent',
      handler: async (_: unknown, ctx) => {
        seen.push((await ctx.children()).map((c) => c.result));
      },
    });
    const s = await serve({ queue: { jobs: [child, parent], pollInterval: 20 } });
    const r = await s.call('POST', '/v1/flows', {
      body: {
        name: 'parent',
        onChildFailure: 'continue',
        children: [{ name: 'parent', children: [{ name: 'child', payload: { n: 1 } }] }, { name: 'child', payload: { n: 2 }, priority: 3 }],
      },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      state: 'waiting-children',
      children: [{ state: 'waiting-children', children: [{ state: 'pending', children: [] }] }, { state: 'pending', children: [] }],
    });
    const top = (await s.call('GET', `/v1/jobs/${r.body.id}`)).body.job;
    expect(top).toMatchObject({ state: 'waiting-children', children: { left: 2, failed: 0, onChildFailure: 'continue' } });
    expect((await s.call('GET', `/v1/jobs/${r.body.children[1].id}`)).body.job).toMatchObject({ parentId: r.body.id, priority: 3 });
    await s.queue.start();
    await waitFor(() => seen.length === 2);
    // The middle parent returned nothing: no result.
    expect(seen).toEqual([[10], [undefined, 20]]);
  });

  it.each([
    ['a key in a child', { name: 'p', children: [{ name: 'c', key: 'k' }] }, 'LJ_ERR_UNKNOWN_OPTION'],
    ['an unknown policy', { name: 'p', onChildFailure: 'maybe', children: [] }, 'LJ_ERR_VALIDATION'],
    ['a bad name deep down', { name: 'p', children: [{ name: 'c', children: [{ name: 'bad name' }] }] }, 'LJ_ERR_VALIDATION'],
    ['children that are not a list', { name: 'p', children: { name: 'c' } }, 'LJ_ERR_VALIDATION'],
  ])('refuses %s with a 400 and stores nothing', async (_what, body, code) => {
    const s = await serve();
    const before = await s.snapshot();
    const r = await s.call('POST', '/v1/flows', { body });
    expect([r.status, r.body.error?.code]).toEqual([400, code]);
    expect(await s.snapshot()).toEqual(before);
  });
});

describe('POST /v1/batches', () => {
  it('stores the items and the onComplete job; the callback reads the counts once all have finished', async () => {
    const counts: unknown[] = [];
    const item = defineJob({ name: 'item', retry: { attempts: 1 }, handler: async ({ ok }: { ok: boolean }) => {
      if (!ok) throw new Error('no');
    } });
    const done = defineJob({ name: 'done', handler: async (_: unknown, ctx) => {
      counts.push(await ctx.childCounts());
    } });
    const s = await serve({ queue: { jobs: [item, done], pollInterval: 20 } });
    const r = await s.call('POST', '/v1/batches', {
      body: { jobs: [{ name: 'item', payload: { ok: true } }, { name: 'item', payload: { ok: false } }], onComplete: { name: 'done', payload: { report: 1 } } },
    });
    expect(r.status).toBe(201);
    expect(r.body.ids).toHaveLength(2);
    expect((await s.queue.getJob(r.body.id)).state).toBe('waiting-children');
    await s.queue.start();
    await waitFor(() => counts.length === 1);
    expect(counts).toEqual([{ completed: 1, dead: 1 }]);
    const bad = await s.call('POST', '/v1/batches', { body: { jobs: [{ name: 'item' }] } });
    expect([bad.status, bad.body.error?.code]).toEqual([400, 'LJ_ERR_VALIDATION']);
  });
});
