/**
 * Unique, debounced and throttled jobs on either store: which enqueues a held
 * key turns away, and when the key is free again.
 */
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob, type Queue } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const fx = useQueues();

/** A handler that holds each run until the test settles it; its first run fails when `failFirst`. */
function gate(options: { failFirst?: boolean } = {}) {
  const waiting: Array<{ payload: unknown; finish: () => void }> = [];
  let runs = 0;
  const handler = async (payload: unknown) => {
    runs++;
    if (options.failFirst && runs === 1) throw new Error('first run fails');
    await new Promise<void>((finish) => waiting.push({ payload, finish }));
    return 'done';
  };
  return { handler, waiting, runs: () => runs };
}

const state = async (q: Queue, id: number) => (await q.getJob(id)).state;

describe('unique', () => {
  it("'until-finished' holds the key through a failed run and its retry, and frees it at completion", async () => {
    const g = gate({ failFirst: true });
    const q = fx.open({ jobs: [defineJob({ name: 'u', retry: { attempts: 3, backoff: { type: 'fixed', delay: 1 } }, handler: g.handler })] });
    const first = await q.enqueue('u', 1, { unique: { key: 'k', while: 'until-finished' } });
    expect(first).toMatchObject({ created: true, state: 'pending' });
    expect(await q.enqueue('u', 2, { unique: { key: 'k', while: 'until-finished' } })).toEqual({ id: first.id, created: false, state: 'pending' });

    const failed = nextEvent(q.events$, (e) => e.job.id === first.id && e.to === 'failed');
    const second = nextEvent(q.events$, (e) => e.job.id === first.id && e.to === 'processing' && e.attempts === 2);
    await q.start();
    await failed;
    // Failed (waiting for its retry), pending again or running again: still held.
    expect(await q.enqueue('u', 3, { unique: { key: 'k' } })).toMatchObject({ id: first.id, created: false });
    await second;
    expect(await q.enqueue('u', 4, { unique: { key: 'k' } })).toMatchObject({ id: first.id, created: false, state: 'processing' });

    const done = nextEvent(q.events$, (e) => e.job.id === first.id && e.to === 'completed');
    g.waiting.shift()!.finish();
    await done;
    await q.stop(); // the next job is not run (its handler would wait for the test)
    const next = await q.enqueue('u', 5, { unique: { key: 'k' } });
    expect(next.created).toBe(true);
    expect(next.id).not.toBe(first.id);
    expect(await fx.value('SELECT count(*) FROM jobs')).toBe(2);
  });

  it("'pending' frees the key at the first claim", async () => {
    const g = gate();
    const q = fx.open({ jobs: [defineJob({ name: 'u', handler: g.handler })] });
    const first = await q.enqueue('u', 1, { unique: { key: 'k', while: 'pending' } });
    expect(await q.enqueue('u', 2, { unique: { key: 'k', while: 'pending' } })).toEqual({ id: first.id, created: false, state: 'pending' });
    const running = nextEvent(q.events$, (e) => e.job.id === first.id && e.to === 'processing');
    await q.start();
    await running;
    await q.pause();
    const next = await q.enqueue('u', 3, { unique: { key: 'k', while: 'pending' } });
    expect(next.created).toBe(true);
    expect(await state(q, first.id)).toBe('processing');
    expect(await q.enqueue('u', 4, { unique: { key: 'k', while: 'pending' } })).toEqual({ id: next.id, created: false, state: 'pending' });
    g.waiting.shift()!.finish();
  });

  it("'active' holds the key while processing and frees it when the job leaves pending and processing", async () => {
    const g = gate();
    const q = fx.open({ jobs: [defineJob({ name: 'u', handler: g.handler })] });
    const first = await q.enqueue('u', 1, { unique: { key: 'k', while: 'active' } });
    const running = nextEvent(q.events$, (e) => e.job.id === first.id && e.to === 'processing');
    await q.start();
    await running;
    await q.pause();
    expect(await q.enqueue('u', 2, { unique: { key: 'k', while: 'active' } })).toEqual({ id: first.id, created: false, state: 'processing' });
    // The job view shows the key it holds and who holds its lease, while they last.
    const held = await q.getJob(first.id);
    expect(held.heldKey).toEqual({ kind: 'unique', key: 'k' });
    expect(held.leaseOwner).toMatch(/^.+:\d+:[0-9a-f]+$/); // host:pid:random, this process
    expect(held.lockedUntil!.getTime()).toBeGreaterThan(held.updatedAt.getTime());
    const done = nextEvent(q.events$, (e) => e.job.id === first.id && e.to === 'completed');
    g.waiting.shift()!.finish();
    await done;
    const finished = await q.getJob(first.id);
    expect([finished.heldKey, finished.leaseOwner, finished.lockedUntil]).toEqual([undefined, undefined, undefined]);
    const next = await q.enqueue('u', 3, { unique: { key: 'k', while: 'active' } });
    expect(next.created).toBe(true);
    // A cancel takes the job out of pending: the key is free again.
    await q.cancel(next.id);
    expect((await q.enqueue('u', 4, { unique: { key: 'k', while: 'active' } })).created).toBe(true);
  });

  it('keys of unique, debounce, throttle and the idempotency key are separate namespaces', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'u', handler: () => {} })] });
    const ids = new Set<number>();
    for (const options of [{ key: 'k' }, { unique: { key: 'k' } }, { debounce: { key: 'k', ms: 1000 } }, { throttle: { key: 'k', ms: 1000 } }]) {
      const r = await q.enqueue('u', 1, options);
      expect(r.created).toBe(true);
      ids.add(r.id);
    }
    expect(ids.size).toBe(4);
  });

  it('enqueueMany: within a batch the first job with a key wins', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'u', handler: () => {} })] });
    const out = await q.enqueueMany([
      { name: 'u', payload: 1, options: { unique: { key: 'a' } } },
      { name: 'u', payload: 2 },
      { name: 'u', payload: 3, options: { unique: { key: 'a' } } },
      { name: 'u', payload: 4, options: { throttle: { key: 'a', ms: 60_000 } } },
      { name: 'u', payload: 5, options: { throttle: { key: 'a', ms: 60_000 } } },
    ]);
    expect(out.map((r) => r.created)).toEqual([true, true, false, true, false]);
    expect(out[2]!.id).toBe(out[0]!.id);
    expect(out[4]!.id).toBe(out[3]!.id);
    expect((await q.getJob(out[0]!.id)).payload).toBe(1);
  });
});

describe('debounce', () => {
  it('a later enqueue replaces the pending payload and pushes the run time; the job runs once, with the last payload', async () => {
    const clock = createVirtualClock(Date.now());
    const payloads: unknown[] = [];
    const q = fx.open({ clock, jobs: [defineJob({ name: 'd', handler: (p: unknown) => { payloads.push(p); } })] });
    const t0 = clock.now();
    const first = await q.enqueue('d', 1, { debounce: { key: 'k', ms: 1000 } });
    expect(first.created).toBe(true);
    expect((await q.getJob(first.id)).runAt.getTime()).toBe(t0 + 1000);
    await clock.advance(600);
    expect(await q.enqueue('d', 2, { debounce: { key: 'k', ms: 1000 } })).toEqual({ id: first.id, created: false, state: 'pending' });
    const job = await q.getJob(first.id);
    expect(job.payload).toBe(2);
    expect(job.runAt.getTime()).toBe(t0 + 1600);

    const done = nextEvent(q.events$, (e) => e.job.id === first.id && e.to === 'completed');
    await q.start();
    // Past the first run time, before the pushed one: nothing runs.
    await clock.advance(500);
    expect(await state(q, first.id)).toBe('pending');
    expect(payloads).toEqual([]);
    for (let i = 0; i < 50 && payloads.length === 0; i++) await clock.advance(100);
    await done;
    expect(payloads).toEqual([2]);
    // Claimed: the key is free, the next enqueue is a new job.
    const next = await q.enqueue('d', 3, { debounce: { key: 'k', ms: 1000 } });
    expect(next.created).toBe(true);
    expect(await fx.value('SELECT count(*) FROM jobs')).toBe(2);
  });
});

describe('throttle', () => {
  it('keeps the first job and drops the rest within the window; after it a new job is created', async () => {
    const clock = createVirtualClock(Date.now());
    const q = fx.open({ clock, jobs: [defineJob({ name: 't', handler: () => {} })] });
    const first = await q.enqueue('t', 1, { throttle: { key: 'k', ms: 1000 } });
    expect(first.created).toBe(true);
    await clock.advance(999);
    expect(await q.enqueue('t', 2, { throttle: { key: 'k', ms: 1000 } })).toEqual({ id: first.id, created: false, state: 'pending' });
    expect((await q.getJob(first.id)).payload).toBe(1);
    await clock.advance(1);
    const next = await q.enqueue('t', 3, { throttle: { key: 'k', ms: 1000 } });
    expect(next.created).toBe(true);
    expect(await q.enqueue('t', 4, { throttle: { key: 'k', ms: 1000 } })).toMatchObject({ id: next.id, created: false });
    expect(await fx.value('SELECT count(*) FROM jobs')).toBe(2);
  });
});

describe('two queues on one database', () => {
  it.each(['unique', 'debounce', 'throttle'] as const)('concurrent %s enqueues from both make one job', async (kind) => {
    const a = fx.open();
    const b = fx.open();
    await Promise.all([a.stats(), b.stats()]);
    const options = kind === 'unique' ? { unique: { key: 'k' } } : { [kind]: { key: 'k', ms: 60_000 } };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).enqueue('u', i, options)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(await fx.value('SELECT count(*) FROM jobs')).toBe(1);
  });
});

describe('bad options', () => {
  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['key and unique', { key: 'a', unique: { key: 'a' } }, 'LJ_ERR_VALIDATION'],
    ['two guards', { unique: { key: 'a' }, throttle: { key: 'a', ms: 5 } }, 'LJ_ERR_VALIDATION'],
    ['unknown while', { unique: { key: 'a', while: 'forever' } }, 'LJ_ERR_VALIDATION'],
    ['empty key', { unique: { key: '' } }, 'LJ_ERR_VALIDATION'],
    ['unknown unique option', { unique: { key: 'a', ttl: 5 } }, 'LJ_ERR_UNKNOWN_OPTION'],
    ['debounce ms 0', { debounce: { key: 'a', ms: 0 } }, 'LJ_ERR_VALIDATION'],
    ['throttle ms < 0', { throttle: { key: 'a', ms: -5 } }, 'LJ_ERR_VALIDATION'],
    ['debounce without ms', { debounce: { key: 'a' } }, 'LJ_ERR_VALIDATION'],
    ['debounce with delay', { debounce: { key: 'a', ms: 5 }, delay: 10 }, 'LJ_ERR_VALIDATION'],
    ['unknown throttle option', { throttle: { key: 'a', ms: 5, max: 2 } }, 'LJ_ERR_UNKNOWN_OPTION'],
  ];
  it.each(bad)('%s is refused and nothing is stored', async (_what, options, code) => {
    const q = fx.open({ jobs: [defineJob({ name: 'u', handler: () => {} })] });
    await expect(q.enqueue('u', 1, options as never)).rejects.toMatchObject({ name: 'ValidationError', code });
    await expect(q.enqueueMany([{ name: 'u', payload: 1, options: { unique: { key: 'ok' } } }, { name: 'u', payload: 2, options: options as never }])).rejects.toMatchObject({ code });
    await q.stats(); // the tables exist (PostgreSQL creates them on first use)
    expect(await fx.value('SELECT count(*) FROM jobs')).toBe(0);
  });
});
