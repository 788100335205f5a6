/**
 * Concurrency groups, global concurrency, rate limits and RateLimitedError on
 * either store, through queues sharing one database as separate processes
 * would: what runs at once, in which order, and when.
 */
import { merge } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob, RateLimitedError, type Queue, type VirtualClock } from '../../src/index.js';
import { isLate } from '../../src/engine/claim/rate-starts.js';
import { limitsByName } from '../../src/engine/core/limits.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent, waitFor } from '../helpers/wait.js';

const fx = useQueues();

interface Run {
  payload: { tag: string; group?: string };
  finish: () => void;
}

/** A handler that holds each run until the test finishes it, counting what runs at once per group and in all. */
function gate() {
  const waiting: Run[] = [];
  const order: string[] = [];
  const running = new Map<string, number>();
  let total = 0;
  let maxTotal = 0;
  const maxByGroup = new Map<string, number>();
  const handler = async (payload: Run['payload']) => {
    const group = payload.group ?? '';
    const n = (running.get(group) ?? 0) + 1;
    running.set(group, n);
    maxByGroup.set(group, Math.max(maxByGroup.get(group) ?? 0, n));
    maxTotal = Math.max(maxTotal, ++total);
    order.push(payload.tag);
    await new Promise<void>((finish) => waiting.push({ payload, finish }));
    running.set(group, (running.get(group) ?? 1) - 1);
    total--;
  };
  /** Finishes the oldest waiting run of `group` (any run without one). */
  const finish = (group?: string) => {
    const i = waiting.findIndex((r) => group === undefined || r.payload.group === group);
    if (i < 0) throw new Error(`no run of ${group} is waiting`);
    waiting.splice(i, 1)[0]!.finish();
  };
  return { handler, waiting, order, finish, running: (group: string) => running.get(group) ?? 0, maxByGroup, maxTotal: () => maxTotal };
}

/** Finishes runs one at a time (group A's first) until `total` have started and ended. */
async function drain(g: ReturnType<typeof gate>, total: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (g.order.length < total || g.waiting.length > 0) {
    if (Date.now() > deadline) throw new Error(`${g.order.length} of ${total} runs started`);
    if (g.waiting.length > 0) g.finish(g.waiting.some((r) => r.payload.group === 'A') ? 'A' : undefined);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const completed = async (q: Queue) => (await q.stats()).byState.completed ?? 0;

/** Polls (real time) until `condition`, moving the virtual clock by 0 so timers armed in the past fire. */
async function until(clock: VirtualClock, condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not reached: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await clock.advance(0);
  }
}

describe('concurrency groups', () => {
  it('run at most groupConcurrency of a group at once across queues, and a busy group holds up no other', async () => {
    const g = gate();
    const job = defineJob({ name: 'sync', groupConcurrency: 1, handler: g.handler });
    const queues = [fx.open({ concurrency: 3, prefetch: 0, jobs: [job] }), fx.open({ concurrency: 3, prefetch: 0, jobs: [job] })];
    // Group A first and longest: a first-in-first-out claim would hold everything behind it.
    for (let i = 0; i < 4; i++) await queues[0]!.enqueue('sync', { tag: `A${i}`, group: 'A' }, { group: 'A' });
    for (let i = 0; i < 2; i++) await queues[0]!.enqueue('sync', { tag: `B${i}`, group: 'B' }, { group: 'B' });
    for (let i = 0; i < 2; i++) await queues[0]!.enqueue('sync', { tag: `plain${i}` });
    await Promise.all(queues.map((q) => q.start()));

    await waitFor(() => g.waiting.length === 4);
    expect(g.running('A')).toBe(1);
    expect(g.running('B')).toBe(1);
    expect(g.running('')).toBe(2);
    const job0 = (await queues[1]!.listJobs({ state: 'processing' })).find((j) => j.group === 'A');
    expect(job0?.group).toBe('A');

    // Each end of a group's run lets its next one in, in either queue.
    await drain(g, 8);
    expect(g.maxByGroup.get('A')).toBe(1);
    expect(g.maxByGroup.get('B')).toBe(1);
    expect(g.order.filter((t) => t.startsWith('A'))).toEqual(['A0', 'A1', 'A2', 'A3']);
  });

  it('take turns: one claim at a time goes round the groups, whatever order they were enqueued in', async () => {
    const order: string[] = [];
    const q = fx.open({ concurrency: 1, prefetch: 0, jobs: [defineJob({ name: 'turn', handler: (p: { tag: string }) => void order.push(p.tag) })] });
    for (const group of ['a', 'b', 'c']) for (let i = 0; i < 3; i++) await q.enqueue('turn', { tag: `${group}${i}` }, { group });
    await q.start();
    await waitFor(() => order.length === 9);
    expect(order).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'c1', 'a2', 'b2', 'c2']);
  });

  it('a group of its own concurrency (setGroupConcurrency) overrides the definition, and null gives it back', async () => {
    const g = gate();
    const q = fx.open({ concurrency: 4, jobs: [defineJob({ name: 'sync', groupConcurrency: 1, handler: g.handler })] });
    await q.setGroupConcurrency('A', 3);
    for (let i = 0; i < 6; i++) await q.enqueue('sync', { tag: `A${i}`, group: 'A' }, { group: 'A' });
    await q.start();
    await waitFor(() => g.running('A') === 3);
    expect((await q.limits()).groups).toEqual([{ group: 'A', pending: 3, running: 3, concurrency: 3, pausedUntil: null }]);

    await q.setGroupConcurrency('A', null);
    // Three still run; as each ends, none starts until one alone runs.
    g.finish('A');
    g.finish('A');
    await waitFor(() => g.running('A') === 1 && g.waiting.length === 1);
    g.finish('A');
    await waitFor(() => g.order.length === 4);
    expect(g.running('A')).toBe(1);
    expect((await q.limits()).groups[0]).toMatchObject({ group: 'A', running: 1, concurrency: null });
    await drain(g, 6);
    expect(g.maxByGroup.get('A')).toBe(3);
  });

  it('refuses bad input with LJ_ERR_VALIDATION and writes nothing', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'j', handler: () => 1 })] });
    await expect(q.enqueue('j', 1, { group: '' })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await expect(q.enqueue('j', 1, { group: 'a\0b' })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await expect(q.setGroupConcurrency('A', 0)).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await expect(q.setGroupConcurrency('', 1)).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    expect(() => defineJob({ name: 'x', groupConcurrency: 0, handler: () => 1 })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(() => defineJob({ name: 'x', globalConcurrency: 1.5, handler: () => 1 })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(() => defineJob({ name: 'x', rateLimit: { max: 5, per: 'soon' }, handler: () => 1 })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(() => defineJob({ name: 'x', rateLimit: { max: 5, per: '1s', burst: 2 } as never, handler: () => 1 })).toThrow(expect.objectContaining({ code: 'LJ_ERR_UNKNOWN_OPTION' }));
    await q.ping(); // the tables exist (a PostgreSQL schema is made on first use)
    expect(await fx.value('SELECT count(*) FROM jobs')).toBe(0);
    expect(await fx.value('SELECT count(*) FROM job_limits')).toBe(0);
  });

  it('grouped pending jobs are listed with the others, in claim order', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'j', handler: () => 1 })] });
    const a = await q.enqueue('j', 1, { group: 'g' });
    const b = await q.enqueue('j', 2);
    const c = await q.enqueue('j', 3, { group: 'g', priority: 5 });
    const store = fx.store();
    try {
      const page = await store.browse({ state: 'pending', limit: 2 });
      expect(page.jobs.map((j) => j.id)).toEqual([c.id, a.id]);
      const rest = await store.browse({ state: 'pending', limit: 2, cursor: page.next! });
      expect(rest.jobs.map((j) => j.id)).toEqual([b.id]);
    } finally {
      await store.close();
    }
    expect((await q.getJob(a.id)).group).toBe('g');
    expect((await q.getJob(b.id)).group).toBeUndefined();
  });
});

describe('global concurrency', () => {
  it('runs at most globalConcurrency jobs of a name across queues; other names are not held', async () => {
    const g = gate();
    const other = gate();
    const jobs = [defineJob({ name: 'report', globalConcurrency: 2, handler: g.handler }), defineJob({ name: 'other', handler: other.handler })];
    const queues = [fx.open({ concurrency: 3, prefetch: 0, jobs }), fx.open({ concurrency: 3, prefetch: 0, jobs })];
    for (let i = 0; i < 6; i++) await queues[0]!.enqueue('report', { tag: `r${i}` });
    for (let i = 0; i < 2; i++) await queues[0]!.enqueue('other', { tag: `o${i}` });
    await Promise.all(queues.map((q) => q.start()));
    await waitFor(() => g.waiting.length === 2 && other.waiting.length === 2);
    expect((await queues[1]!.limits()).names).toEqual([
      { name: 'report', groupConcurrency: null, globalConcurrency: 2, rateLimit: null, running: 2, tokensLeft: null, pausedUntil: null },
    ]);
    await drain(other, 2);
    await drain(g, 6);
    expect(g.maxTotal()).toBe(2);
  });
});

describe('rate limits', () => {
  it('claim at most max jobs in any window of per, across queues, on the injected clock', async () => {
    const START = Date.parse('2026-06-01T00:00:00Z');
    const clock = createVirtualClock(START);
    const starts: number[] = [];
    const job = defineJob({ name: 'call', rateLimit: { max: 3, per: '1s' }, handler: () => void starts.push(clock.now() - START) });
    const queues = [fx.open({ clock, concurrency: 4, jobs: [job] }), fx.open({ clock, concurrency: 4, jobs: [job] })];
    await queues[0]!.enqueueMany(Array.from({ length: 10 }, (_, i) => ({ name: 'call', payload: i })));
    await Promise.all(queues.map((q) => q.start()));
    // Step the clock 104 ms at a time; at each step, what its tokens allow has started. A token
    // comes back a window after its job's start deadline (40 ms after the claim): every 1,040 ms,
    // on a step (a claim made after a step that passed its time would claim at the step's end).
    const allowed = (elapsed: number) => Math.min(10, 3 * (Math.floor(elapsed / 1040) + 1));
    for (let elapsed = 0; elapsed <= 3640; elapsed += 104) {
      if (elapsed > 0) await clock.advance(104);
      await until(clock, () => starts.length === allowed(elapsed), `${allowed(elapsed)} starts by ${elapsed} ms (${starts.join(", ")})`);
    }
    expect(starts).toEqual([0, 0, 0, 1040, 1040, 1040, 2080, 2080, 2080, 3120]);
    const [view] = (await queues[0]!.limits()).names;
    expect(view).toMatchObject({ name: 'call', rateLimit: { max: 3, perMs: 1000, perGroup: false }, tokensLeft: 2 });
  });

  it('a limit far from reached lets claims fill the buffer; a buffered job past its start deadline goes back unstarted', async () => {
    const START = Date.parse('2026-06-01T00:00:00Z');
    const clock = createVirtualClock(START);
    const started: Array<[number, number]> = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const job = defineJob({
      name: 'call',
      rateLimit: { max: 1000, per: '1s' },
      handler: async (n: number, ctx) => {
        started.push([ctx.jobId, clock.now()]);
        if (n === 0) await held;
      },
    });
    const q = fx.open({ clock, concurrency: 1, prefetch: 5, jobs: [job] });
    const ids = (await q.enqueueMany(Array.from({ length: 6 }, (_, i) => ({ name: 'call', payload: i })))).map((r) => r.id);
    await q.start();
    await until(clock, () => started.length === 1, 'the first job started');
    // One worker, six jobs claimed: the five others wait in the buffer with a start deadline 40 ms on.
    expect(await fx.value<number>("SELECT count(*) FROM jobs WHERE state = 'processing'")).toBe(6);
    await clock.advance(100);
    release();
    await until(clock, async () => (await fx.value<number>("SELECT count(*) FROM jobs WHERE state = 'completed'")) === 6, 'every job completed');
    const history = await fx.sql<{ job_id: number; event: string; at: number }>('SELECT job_id, event, at FROM job_history ORDER BY id');
    // Each of the five went back once (no attempt spent), then ran.
    for (const id of ids.slice(1)) expect(history.filter((h) => Number(h.job_id) === id).map((h) => h.event)).toEqual(['job.claim', 'job.release', 'job.claim', 'job.complete']);
    expect((await q.getJob(ids[5]!)).attempts).toBe(1);
    // Every start within 40 ms of its job's last claim.
    for (const [id, at] of started) {
      const claimed = history.filter((h) => Number(h.job_id) === id && h.event === 'job.claim' && Number(h.at) <= at).at(-1)!;
      expect(at - Number(claimed.at)).toBeLessThan(40);
    }
    await q.stop();
  });

  it('a claim with a start deadline gives it to every rate-limited job it takes, for idle workers and the buffer alike, and stamps their tokens there', async () => {
    const call = defineJob({ name: 'call', rateLimit: { max: 50, per: '1h' }, handler: () => {} });
    const q = fx.open({ jobs: [call] });
    await q.enqueueMany(Array.from({ length: 3 }, (_, i) => ({ name: 'call', payload: i })));
    const store = fx.store();
    try {
      const now = Date.now() + 1000; // the jobs are due
      const request = { names: ['call'], limit: 3, owner: 'w', leaseMs: 60_000, now, rule: CLAIM_RULE, limits: limitsByName([call]) };
      const jobs = (await store.claim({ ...request, startNow: 1, startWithinMs: 40 })).jobs;
      // The first for the idle worker, the two for the buffer: each must start within 40 ms, or go back.
      expect(jobs.map((j) => j.startBy)).toEqual([now + 40, now + 40, now + 40]);
      expect([isLate(jobs[0]!, now + 38), isLate(jobs[0]!, now + 39)]).toEqual([false, true]);
      // Three tokens spent of fifty, stamped at the deadline: a start comes no later.
      expect(JSON.parse(await fx.value<string>("SELECT spent FROM job_limits WHERE kind = 'name' AND key = 'call'"))).toEqual([[now + 40, 3]]);
    } finally {
      await store.close();
    }
  });

  it('perGroup: each group has a bucket of its own', async () => {
    const START = Date.parse('2026-06-01T00:00:00Z');
    const clock = createVirtualClock(START);
    const starts: Array<[string, number]> = [];
    const job = defineJob({ name: 'call', rateLimit: { max: 2, per: '1m', perGroup: true }, handler: (p: { g: string }) => void starts.push([p.g, clock.now() - START]) });
    const q = fx.open({ clock, concurrency: 4, jobs: [job] });
    for (const g of ['x', 'y']) for (let i = 0; i < 3; i++) await q.enqueue('call', { g }, { group: g });
    await q.start();
    await until(clock, () => starts.length === 4, 'two per group');
    await clock.advance(30_000);
    await clock.advance(30_000);
    await clock.advance(40);
    await until(clock, () => starts.length === 6, 'the third of each group a minute after the first two had to start');
    // Start times are virtual: a run let in early would show a time before the minute after the deadline (40 ms).
    expect(starts.filter(([, at]) => at < 60_040).length).toBe(4);
    expect(starts.filter(([, at]) => at === 60_040).map(([g]) => g).sort()).toEqual(['x', 'y']);
  });

  it('RateLimitedError pauses the group everywhere, gives the attempt back, and lets other groups run', async () => {
    const START = Date.parse('2026-06-01T00:00:00Z');
    const clock = createVirtualClock(START);
    const starts: Array<[string, number]> = [];
    let thrown = false;
    const job = defineJob({
      name: 'api',
      groupConcurrency: 1,
      retry: { attempts: 1 },
      handler: (p: { tag: string }) => {
        starts.push([p.tag, clock.now() - START]);
        if (p.tag === 'g1' && !thrown) {
          thrown = true;
          throw new RateLimitedError(5000);
        }
      },
    });
    const queues = [fx.open({ clock, concurrency: 1, prefetch: 0, jobs: [job] }), fx.open({ clock, concurrency: 1, prefetch: 0, jobs: [job] })];
    const first = await queues[0]!.enqueue('api', { tag: 'g1' }, { group: 'G' });
    await queues[0]!.enqueue('api', { tag: 'g2' }, { group: 'G' });
    await queues[0]!.enqueue('api', { tag: 'h1' }, { group: 'H' });
    // Either queue may claim g1: its release is announced by the one that ran it (events$ is a process's own).
    const released = nextEvent(merge(queues[0]!.events$, queues[1]!.events$), (e) => e.job.id === first.id && e.to === 'pending');
    await Promise.all(queues.map((q) => q.start()));
    await until(clock, () => starts.length === 2, 'g1 and h1');
    await released;
    const view = await queues[1]!.limits();
    expect(view.groups.find((g) => g.group === 'G')?.pausedUntil?.getTime()).toBe(START + 5000);
    expect((await queues[0]!.getJob(first.id)).attempts).toBe(0);
    await clock.advance(4999);
    await clock.advance(1);
    await until(clock, () => starts.length === 4, 'the group after its pause');
    // Start times are virtual: a run inside the pause would show a time before 5000.
    expect(starts.slice(0, 2).map(([t]) => t).sort()).toEqual(['g1', 'h1']);
    expect(starts.slice(2).map(([, at]) => at)).toEqual([5000, 5000]);
    await until(clock, async () => (await completed(queues[0]!)) === 3, 'all completed');
    // One attempt allowed, and the rate-limited run did not spend it.
    expect(await queues[0]!.getJob(first.id)).toMatchObject({ state: 'completed', attempts: 1 });
    const history = await queues[0]!.history(first.id);
    expect(history.find((h) => h.to === 'pending' && h.from === 'processing')).toMatchObject({ event: 'job.release', error: { code: 'LJ_ERR_RATE_LIMITED', message: 'rate limited for 5000 ms' } });
  });
  it('RateLimitedError: the jobs of the group this process claimed ahead of time are handed back, and none starts inside the pause', async () => {
    const START = Date.parse('2026-06-01T00:00:00Z');
    const clock = createVirtualClock(START);
    const starts: Array<[string, number]> = [];
    let thrown = false;
    const job = defineJob({
      name: 'api',
      retry: { attempts: 1 },
      handler: (p: { tag: string }) => {
        starts.push([p.tag, clock.now() - START]);
        if (p.tag === 'p1' && !thrown) {
          thrown = true;
          throw new RateLimitedError(2000);
        }
      },
    });
    // Concurrency 1 and the default prefetch: p2…p5 are claimed with p1, before its error.
    const queue = fx.open({ clock, concurrency: 1, jobs: [job] });
    const ids: number[] = [];
    for (let i = 1; i <= 5; i++) ids.push((await queue.enqueue('api', { tag: `p${i}` }, { group: 'P' })).id);
    const handedBack = new Set<number>();
    const sub = queue.events$.subscribe((e) => {
      if (e.type === 'job:pending' && e.from === 'processing') handedBack.add(e.job.id);
    });
    await queue.start();
    await until(clock, () => handedBack.size === 5, 'p1 released and p2…p5 handed back');
    sub.unsubscribe();
    expect(starts).toEqual([['p1', 0]]);
    for (const id of ids) expect(await queue.getJob(id)).toMatchObject({ state: 'pending', attempts: 0, runAt: new Date(START + 2000) });
    await clock.advance(2000);
    await until(clock, async () => (await completed(queue)) === 5, 'all five after the pause');
    expect(starts.slice(1)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5'].map((t) => [t, 2000]));
  });

  it('RateLimitedError in one queue: another queue hands back the jobs of the group it claimed ahead of time', async () => {
    const START = Date.parse('2026-06-01T00:00:00Z');
    const clock = createVirtualClock(START);
    const starts: Array<[string, number]> = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let thrown = false;
    const job = defineJob({
      name: 'api',
      retry: { attempts: 1 },
      handler: async (p: { tag: string }) => {
        starts.push([p.tag, clock.now() - START]);
        if (p.tag === 'hold') await held;
        if (p.tag === 'throw' && !thrown) {
          thrown = true;
          throw new RateLimitedError(2000);
        }
      },
    });
    const holder = fx.open({ clock, concurrency: 1, prefetch: 4, jobs: [job] });
    const ids: number[] = [];
    for (const tag of ['hold', 'q2', 'q3', 'q4', 'q5']) ids.push((await holder.enqueue('api', { tag }, { group: 'Q' })).id);
    const handedBack = new Set<number>();
    const sub = holder.events$.subscribe((e) => {
      if (e.type === 'job:pending' && e.from === 'processing') handedBack.add(e.job.id);
    });
    await holder.start();
    await until(clock, async () => starts.length === 1 && (await holder.listJobs({ state: 'processing' })).length === 5, 'hold running, q2…q5 claimed ahead');

    const thrower = fx.open({ clock, concurrency: 1, prefetch: 0, jobs: [job] });
    const throwId = (await thrower.enqueue('api', { tag: 'throw' }, { group: 'Q' })).id;
    const paused = nextEvent(thrower.events$, (e) => e.job.id === throwId && e.to === 'pending');
    await thrower.start();
    await paused;
    // The holder looks at the pauses on its own clock while jobs wait in its buffer.
    await until(clock, async () => {
      await clock.advance(10);
      return handedBack.size === 4;
    }, 'q2…q5 handed back');
    sub.unsubscribe();
    release();
    await until(clock, async () => (await holder.getJob(ids[0]!)).state === 'completed', 'hold completed');
    expect(starts.map(([t]) => t)).toEqual(['hold', 'throw']);
    for (const id of ids.slice(1)) expect(await holder.getJob(id)).toMatchObject({ state: 'pending', attempts: 0 });
    await clock.advance(2000);
    await until(clock, async () => (await completed(holder)) === 6, 'everything after the pause');
    expect(starts.slice(2).every(([, at]) => at >= 2000)).toBe(true);
  });
  it('RateLimitedError: jobs of the group that a claim brings in before the pause is written are handed back too', async () => {
    const START = Date.parse('2026-06-01T00:00:00Z');
    const clock = createVirtualClock(START);
    const starts: Array<[string, number]> = [];
    let thrown = false;
    const job = defineJob({
      name: 'api',
      retry: { attempts: 1 },
      handler: (p: { tag: string }) => {
        starts.push([p.tag, clock.now() - START]);
        if (p.tag === 'p1' && !thrown) {
          thrown = true;
          throw new RateLimitedError(2000);
        }
      },
    });
    // The pause's write waits until a claim has brought in more of the group: that claim committed first.
    const inner = fx.store();
    let claimedMore!: () => void;
    const more = new Promise<void>((resolve) => (claimedMore = resolve));
    const store = {
      ...inner,
      claim: async (req: Parameters<typeof inner.claim>[0]) => {
        const result = await inner.claim(req);
        if (thrown && result.jobs.length > 0) claimedMore();
        return result;
      },
      pauseLimit: async (...args: Parameters<typeof inner.pauseLimit>) => {
        await more;
        return inner.pauseLimit(...args);
      },
    };
    const queue = fx.open({ clock, store, concurrency: 1, prefetch: 0, jobs: [job] });
    for (let i = 1; i <= 3; i++) await queue.enqueue('api', { tag: `p${i}` }, { group: 'P' });
    let released = 0;
    const sub = queue.events$.subscribe((e) => {
      if (e.type === 'job:pending' && e.from === 'processing') released++;
    });
    await queue.start();
    await more;
    await until(clock, async () => released >= 2 && (await queue.listJobs({ state: 'pending' })).length === 3, 'p1 released, the claimed one handed back');
    sub.unsubscribe();
    expect(starts).toEqual([['p1', 0]]);
    await clock.advance(2000);
    await until(clock, async () => (await completed(queue)) === 3, 'all three after the pause');
    expect(starts.slice(1).every(([, at]) => at === 2000)).toBe(true);
  });
});
