import { systemClock } from '../../src/lib/clock.js';
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { parseDuration } from '../../src/lib/duration.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events, nextEvent, waitFor } from '../helpers/wait.js';

const fx = useQueues();

const count = (where: string) => fx.value<number>(`SELECT count(*) FROM jobs WHERE ${where}`);

describe('prefetch', () => {
  it('holds at most concurrency + prefetch jobs, and a cancelled job waiting in the prefetch never runs', async () => {
    const ran: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = fx.open({
      concurrency: 2,
      prefetch: 3,
      jobs: [defineJob({ name: 'j', handler: async (n: number) => { ran.push(n); await gate; } })],
    });
    const ids = (await q.enqueueMany(Array.from({ length: 20 }, (_, i) => ({ name: 'j', payload: i })))).map((r) => r.id);
    const claimed = events(q.events$, (e) => e.to === 'processing', 5);
    await q.start();
    await claimed;
    expect(await count("state = 'processing'")).toBe(5);
    // The claims are announced as they commit; the two workers start their jobs after (later on a loaded machine).
    await waitFor(() => ran.length === 2);
    expect(ran).toEqual([0, 1]);
    // Job 4 was claimed ahead and waits for a worker: cancelling it must keep it from running.
    await q.cancel(ids[4]!);
    const done = events(q.events$, (e) => e.to === 'completed', 19);
    release();
    await done;
    expect(ran).not.toContain(4);
    expect(ran).toHaveLength(19);
    expect((await q.getJob(ids[4]!)).state).toBe('cancelled');
  });

  it('claims in batches: no top-up of a few jobs while the prefetch is still well filled', async () => {
    // concurrency 2 + prefetch 8: a refill starts when 2 (a quarter) are left,
    // so every claim but the last takes at least 10 - 2 running - 2 waiting = 6.
    const q = fx.open({ concurrency: 2, prefetch: 8, jobs: [defineJob({ name: 'j', handler: () => undefined })] });
    await q.enqueueMany(Array.from({ length: 200 }, (_, i) => ({ name: 'j', payload: i })));
    const done = events(q.events$, (e) => e.to === 'completed', 200);
    await q.start();
    await done;
    const rows = await fx.sql<{ n: number }>("SELECT count(*) AS n FROM job_history WHERE event = 'job.claim' GROUP BY lease_token ORDER BY min(id)");
    const batches = rows.map((r) => r.n);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(200);
    expect(batches.slice(0, -1).filter((n) => n < 6)).toEqual([]);
  });

  it('by default claims more per transaction while the workers take jobs fast, and no more than four times concurrency ahead for slow jobs', async () => {
    const fast = fx.open({ concurrency: 2, jobs: [defineJob({ name: 'j', handler: () => undefined })] });
    await fast.enqueueMany(Array.from({ length: 3000 }, (_, i) => ({ name: 'j', payload: i })));
    const done = events(fast.events$, (e) => e.to === 'completed', 3000, 20_000);
    await fast.start();
    await done;
    await fast.stop();
    const batches = (await fx.sql<{ n: number }>("SELECT count(*) AS n FROM job_history WHERE event = 'job.claim' GROUP BY lease_token")).map((r) => Number(r.n));
    // A fixed prefetch of 4 × concurrency would take at most 2 + 8 jobs per claim.
    expect(Math.max(...batches)).toBeGreaterThan(2 * 10);

    // Slow next to a claim's round trip even on a loaded machine (the buffer grows to cover the round trip).
    const slow = fx.open({ name: 'slow', concurrency: 2, jobs: [defineJob({ name: 's', handler: () => new Promise((r) => setTimeout(r, 150)) })] });
    await slow.enqueueMany(Array.from({ length: 24 }, (_, i) => ({ name: 's', payload: i })));
    const slowDone = events(slow.events$, (e) => e.to === 'completed' && e.job.name === 's', 24, 20_000);
    await slow.start();
    await slowDone;
    const slowBatches = await fx.sql<{ n: number }>(
      "SELECT count(*) AS n FROM job_history h JOIN jobs j ON j.id = h.job_id WHERE h.event = 'job.claim' AND j.name = 's' GROUP BY h.lease_token",
    );
    // 150 ms jobs: the buffer stays at its floor, so a claim takes at most the 2 workers + 4 × 2.
    expect(slowBatches.length).toBeGreaterThan(1);
    expect(Math.max(...slowBatches.map((r) => Number(r.n)))).toBeLessThanOrEqual(2 + 4 * 2);
  });

  it('prefetch 0 claims only for idle workers', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = fx.open({ concurrency: 2, prefetch: 0, jobs: [defineJob({ name: 'j', handler: () => gate })] });
    await q.enqueueMany(Array.from({ length: 6 }, (_, i) => ({ name: 'j', payload: i })));
    const claimed = events(q.events$, (e) => e.to === 'processing', 2);
    await q.start();
    await claimed;
    expect(await count("state = 'processing'")).toBe(2);
    const done = events(q.events$, (e) => e.to === 'completed', 6);
    release();
    await done;
  });
});

describe('retention', () => {
  it('completed: 0 deletes each job in the transaction that completes it, keeping its outcome and history for retention.outcome', async () => {
    const q = fx.open({
      retention: { completed: 0 },
      jobs: [
        defineJob({ name: 'ok', handler: () => 1 }),
        defineJob({ name: 'bad', retry: { attempts: 1 }, handler: () => { throw new Error('x'); } }),
      ],
    });
    await q.enqueueMany(Array.from({ length: 30 }, (_, i) => ({ name: 'ok', payload: i })));
    const bad = await q.enqueue('bad', {});
    const done = events(q.events$, (e) => e.to === 'completed', 30);
    const dead = nextEvent(q.events$, (e) => e.to === 'dead');
    await q.start();
    await Promise.all([done, dead]);
    expect(await count('1 = 1')).toBe(1);
    expect((await q.getJob(bad.id)).state).toBe('dead');
    // Each completed job left its outcome, and its claim and completion in the history, until the outcome is forgotten.
    expect(await fx.value('SELECT count(*) FROM job_outcomes WHERE state = ?', ['completed'])).toBe(30);
    expect(await fx.value("SELECT count(*) FROM job_history WHERE to_state = 'completed'")).toBe(30);
    expect(await fx.value('SELECT count(*) FROM job_history WHERE job_id <> ? AND job_id NOT IN (SELECT id FROM job_outcomes)', [bad.id])).toBe(0);
  });

  it('deletes finished jobs older than their retention, and keeps younger ones', async () => {
    let offset = 0;
    const clock = { ...systemClock, now: () => Date.now() + offset };
    const jobs = [defineJob({ name: 'ok', handler: () => 1 }), defineJob({ name: 'bad', retry: { attempts: 1 }, handler: () => { throw new Error('x'); } })];
    const q1 = fx.open({ clock, jobs });
    await q1.enqueueMany(Array.from({ length: 1200 }, (_, i) => ({ name: 'ok', payload: i })));
    await q1.enqueue('bad', {});
    const settled = events(q1.events$, (e) => e.to === 'completed' || e.to === 'dead', 1201, 30_000);
    await q1.start();
    await settled;
    await q1.close();
    offset = 2 * 3_600_000; // two hours later
    const q2 = fx.open({ clock, jobs, retention: { completed: '1h', dead: '7d' } });
    const fresh = await q2.enqueue('ok', 'fresh');
    const freshDone = nextEvent(q2.events$, (e) => e.job.id === fresh.id && e.to === 'completed');
    await q2.start(); // the retention pass runs at start, in batches of 500
    await freshDone;
    await expect.poll(() => count("state = 'completed'"), { timeout: 10_000 }).toBeLessThanOrEqual(1);
    expect(await count("state = 'completed'")).toBe(1);
    expect(await count("state = 'dead'")).toBe(1);
    expect((await q2.getJob(fresh.id)).state).toBe('completed');
    expect(await fx.value('SELECT count(DISTINCT job_id) FROM job_history WHERE job_id <> 0')).toBe(2);
  });

  it('parses durations and refuses bad ones', () => {
    expect(parseDuration('x', '1d')).toBe(86_400_000);
    expect(parseDuration('x', '90s')).toBe(90_000);
    expect(parseDuration('x', '1.5h')).toBe(5_400_000);
    expect(parseDuration('x', 250)).toBe(250);
    for (const bad of ['1 day', '-1s', -5, 'h', null]) expect(() => parseDuration('x', bad)).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(() => fx.open({ retention: { completed: 'soon' } })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(() => fx.open({ retention: { finished: 0 } as never })).toThrow(expect.objectContaining({ code: 'LJ_ERR_UNKNOWN_OPTION' }));
  });
});
