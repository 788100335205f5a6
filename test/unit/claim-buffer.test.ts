/**
 * The prefetch buffer's modes and the signals it gives for each change, each
 * claim and each hand-back (claim-buffer.ts), driven as the claim loop and
 * the worker pool drive it, on a virtual clock.
 */
import { describe, expect, it } from 'vitest';
import { createClaimBuffer, type ClaimBufferOptions } from '../../src/engine/claim/claim-buffer.js';
import type { BufferEvent } from '../../src/engine/core/events.js';
import { createRatePauses } from '../../src/engine/claim/rate-pauses.js';
import { createVirtualClock } from '../../src/index.js';
import type { ClaimResult, LeasedJob } from '../../src/store/store.js';

const T0 = 1_000_000;
let nextId = 1;

function leased(o: Partial<LeasedJob> = {}): LeasedJob {
  const id = nextId++;
  return {
    id,
    name: 'j',
    state: 'processing',
    payload: '{}',
    key: null,
    priority: 0,
    runAt: T0,
    attempts: 1,
    lastError: null,
    result: null,
    progress: null,
    retry: null,
    timeout: null,
    ctx: null,
    leaseOwner: 'w',
    leaseToken: `t${id}`,
    lockedUntil: T0 + 30_000,
    createdAt: T0,
    updatedAt: T0,
    version: 1,
    group: null,
    parentId: null,
    ...o,
  };
}

const batch = (n: number, o: Partial<LeasedJob> = {}): ClaimResult => ({ jobs: Array.from({ length: n }, () => leased(o)) });

/** A buffer of concurrency 4 (a floor of 16), its signals, what it handed back, and a start check that confirms nothing ahead. */
function setup(o: Partial<ClaimBufferOptions> = {}) {
  const clock = createVirtualClock(T0);
  const signals: BufferEvent[] = [];
  const handedBack: Array<{ id: number; why: string; runAt?: number }> = [];
  const running = new Set<number>();
  const buffer = createClaimBuffer({
    concurrency: 4,
    prefetch: undefined,
    grouped: false,
    clock,
    pauses: createRatePauses(),
    isRunning: (id) => running.has(id),
    handBack: (job, why, runAt) => void handedBack.push({ id: job.id, why, ...(runAt === undefined ? {} : { runAt }) }),
    signal: (e) => void signals.push(e),
    ...o,
  });
  const modes = () => signals.filter((s) => s.type === 'buffer:mode').map((s) => (s as { mode: string }).mode);
  return { clock, buffer, signals, handedBack, running, modes };
}

describe('the prefetch buffer', () => {
  it('goes from starting through filling to stocked, asks for a refill once at its low-water mark, and empties', () => {
    const { buffer, modes, signals } = setup();
    let hungry = 0;
    buffer.hungry$.subscribe(() => hungry++);
    expect(buffer.mode()).toBe('starting');
    expect(buffer.freeSlots(0)).toBe(4 + 16);
    buffer.claiming();
    buffer.claimed(batch(20), 20, T0);
    expect(modes()).toEqual(['filling', 'stocked']);
    expect(signals.find((s) => s.type === 'buffer:claimed')).toMatchObject({ asked: 20, got: 20, starved: false, heldBack: null });
    expect(buffer.freeSlots(0)).toBe(0); // stocked: the loop claims nothing
    const taken: number[] = [];
    for (let i = 0; i < 16; i++) taken.push(buffer.take()!.id);
    expect(hungry).toBe(1); // at 4 waiting (a quarter of 16): once
    expect(buffer.mode()).toBe('low');
    expect(buffer.freeSlots(4)).toBe(4 + 16 - 4 - 4);
    for (let i = 0; i < 4; i++) taken.push(buffer.take()!.id);
    expect(new Set(taken).size).toBe(20);
    expect(buffer.take()).toBeUndefined();
    expect(modes()).toEqual(['filling', 'stocked', 'low', 'empty']);
    expect(hungry).toBe(1);
  });

  it('grows its size fourfold when the workers ran it dry while a claim that came back full was on its way', () => {
    const { buffer, signals } = setup();
    buffer.claiming();
    buffer.claimed(batch(20), 20, T0);
    for (let i = 0; i < 17; i++) buffer.take();
    buffer.claiming();
    for (let i = 0; i < 3; i++) buffer.take();
    expect(buffer.take()).toBeUndefined(); // nothing left, the claim still on its way
    const asked = buffer.freeSlots(4);
    buffer.claimed(batch(asked), asked, T0);
    expect(signals.filter((s) => s.type === 'buffer:claimed').at(-1)).toMatchObject({ starved: true });
    // Four times the floor now: once it is taken, the next claim may fill 64 besides the idle workers.
    while (buffer.take()) void 0;
    expect(buffer.freeSlots(0)).toBe(4 + 64);
  });

  it('leaves a job whose previous run is still alive for later', () => {
    const { buffer, running } = setup();
    const [first, second] = batch(2).jobs as [LeasedJob, LeasedJob];
    running.add(first.id);
    buffer.claiming();
    buffer.claimed({ jobs: [first, second] }, 2, T0);
    expect(buffer.take()!.id).toBe(second.id); // first waits for its run
    expect(buffer.take()).toBeUndefined();
    running.delete(first.id);
    expect(buffer.take()!.id).toBe(first.id);
  });

  it('hands back a job taken and not started with its signal (the start check found it late)', () => {
    const { buffer, handedBack, signals } = setup();
    const [job] = batch(1).jobs as [LeasedJob];
    buffer.claiming();
    buffer.claimed({ jobs: [job] }, 1, T0);
    buffer.handBack(buffer.take()!, 'late', T0 + 40);
    expect(handedBack).toEqual([{ id: job.id, why: 'late', runAt: T0 + 40 }]);
    expect(signals.at(-1)).toMatchObject({ type: 'buffer:handed-back', why: 'late', jobs: [job.id] });
  });

  it('hands back what its workers will not reach within the horizon once the jobs turn slow, newest first', async () => {
    const { buffer, handedBack, signals, clock } = setup({ concurrency: 2 });
    // Quick jobs grow it to its ceiling.
    for (let round = 0; round < 20; round++) {
      buffer.claiming();
      const n = buffer.freeSlots(0);
      buffer.claimed(batch(n), n, clock.now());
      while (buffer.take()) void 0;
      await clock.advance(5);
    }
    buffer.claiming();
    const n = buffer.freeSlots(0);
    expect(n).toBeGreaterThan(100);
    const slow = batch(n).jobs;
    buffer.claimed({ jobs: slow }, n, clock.now());
    buffer.take();
    buffer.take(); // both workers busy for long
    await clock.advance(1000); // two horizons on: the check after the claim
    const back = signals.filter((s) => s.type === 'buffer:handed-back');
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({ why: 'overflow' });
    expect(buffer.size()).toBe(8); // the floor is kept
    expect(handedBack.map((h) => h.id)).toEqual(slow.slice(10).map((j) => j.id));
  });

  it('says when to look again for jobs a claim held back, and gives every waiting job back at stop', () => {
    const { buffer, signals } = setup();
    buffer.claiming();
    buffer.claimed({ jobs: batch(2).jobs, heldBack: { until: T0 + 500 } }, 20, T0);
    expect(buffer.heldBack()).toEqual({ until: T0 + 500 });
    expect(buffer.dueBack(null, T0)).toBe(T0 + 500);
    expect(buffer.dueBack(T0 + 200, T0)).toBe(T0 + 200);
    buffer.claiming();
    buffer.claimed({ jobs: [], heldBack: { until: null } }, 20, T0);
    expect(buffer.dueBack(null, T0)).toBe(T0 + 100); // a running job's end frees them: looked at within 100 ms
    buffer.claiming();
    buffer.claimed({ jobs: [] }, 20, T0);
    expect(buffer.dueBack(null, T0)).toBeNull();
    const unstarted = buffer.stop();
    expect(unstarted).toHaveLength(2);
    expect(buffer.mode()).toBe('stopped');
    expect(buffer.take()).toBeUndefined();
    expect(signals.at(-1)).toMatchObject({ type: 'buffer:mode', mode: 'stopped' });
    expect(signals.find((s) => s.type === 'buffer:handed-back')).toMatchObject({ why: 'stopped', jobs: unstarted.map((j) => j.id) });
  });

  it('hands back the jobs of a paused name as their claim comes in, due when the pause ends', () => {
    const pauses = createRatePauses();
    const { buffer, handedBack } = setup({ pauses });
    pauses.note({ kind: 'name', key: 'api', until: T0 + 5000 });
    buffer.claiming();
    const [kept, paused] = [leased(), leased({ name: 'api' })];
    buffer.claimed({ jobs: [kept, paused] }, 20, T0);
    expect(handedBack).toEqual([{ id: paused.id, why: 'paused', runAt: T0 + 5000 }]);
    expect(buffer.take()!.id).toBe(kept.id);
  });

  it("drops a job whose lease the start check found lost, and only that lease's", () => {
    const { buffer, handedBack, signals } = setup();
    const jobs = batch(3).jobs;
    // The same job again, under another claim's lease: the answer is about the first one only.
    const again = { ...jobs[2]!, leaseToken: 'newer' };
    buffer.claiming();
    buffer.claimed({ jobs: [...jobs, again] }, 20, T0);
    buffer.take();
    buffer.lose(jobs[2]!);
    // Not ours any more: it leaves the buffer, and nothing is written for it.
    expect(handedBack).toEqual([]);
    expect(signals.find((s) => s.type === 'buffer:handed-back')).toMatchObject({ why: 'lost', jobs: [jobs[2]!.id] });
    expect([buffer.take(), buffer.take()].map((j) => j?.leaseToken)).toEqual([jobs[1]!.leaseToken, 'newer']);
  });
});
