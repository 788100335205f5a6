/**
 * A run holds its job from its handler's start to its return, in whichever
 * process, whatever the row says meanwhile. Two connections to one database
 * stand for two processes: one runs the job, the other acts on it as an
 * operator would (cancel, then run again at once; a unique key's next job;
 * remove). A handler that ignores its signal keeps its job until it returns;
 * one that heeds it is told promptly, through the store's change hints, not
 * at its next lease renewal (the lease here is far longer than the waits).
 */
import { merge } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { defineJob, InvalidTransitionError, type ClaimPassEvent } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent, nextPass } from '../helpers/wait.js';

const fx = useQueues();
/** Long enough that no renewal (at half of it) comes within a test. */
const LEASE = 60_000;

interface Run {
  id: number;
  attempt: number;
  start: number;
  end?: number;
  aborted?: number;
}

function worker(runs: Run[], gate: { open?: () => void; opened: Promise<void> }, heed: boolean) {
  return fx.open({
    lease: LEASE,
    concurrency: 2,
    jobs: [
      defineJob({
        name: 'long',
        handler: async (_: { k?: string }, ctx) => {
          const run: Run = { id: ctx.jobId, attempt: ctx.attempt, start: Date.now() };
          runs.push(run);
          ctx.signal.addEventListener('abort', () => (run.aborted = Date.now()));
          // The first run waits for the test (or its signal, if it heeds it); later runs return at once.
          if (runs.filter((r) => r.id === ctx.jobId).length === 1) {
            await (heed ? Promise.race([gate.opened, new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()))]) : gate.opened);
          }
          run.end = Date.now();
          return 'ok';
        },
      }),
    ],
  });
}

const gated = () => {
  const gate: { open?: () => void; opened: Promise<void> } = { opened: Promise.resolve() };
  gate.opened = new Promise<void>((resolve) => (gate.open = resolve));
  return gate;
};

const startedRun = async (runs: Run[], id: number) => {
  for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 10))) {
    const run = runs.find((r) => r.id === id);
    if (run) return run;
  }
  throw new Error(`job ${id} never started`);
};

const overlaps = (runs: Run[]) =>
  runs.flatMap((a, i) => runs.slice(i + 1).filter((b) => b.id === a.id && b.start < (a.end ?? Number.POSITIVE_INFINITY) && a.start < (b.end ?? Number.POSITIVE_INFINITY)).map((b) => `${a.id}: runs ${a.attempt} and ${b.attempt}`));

describe('a run holds its job until its handler returns', () => {
  it('cancel + run again from another connection while a handler that ignores its signal runs: the second run starts only after the first returned', async () => {
    const runs: Run[] = [];
    const gate = gated();
    const a = worker(runs, gate, false);
    const b = worker(runs, gate, false);
    const operator = fx.open({ lease: LEASE });
    const { id } = await operator.enqueue('long', {});
    await Promise.all([a.start(), b.start()]);
    await startedRun(runs, id);
    await operator.cancel(id);
    // The other worker is idle and the job is pending: it must not start while the first run goes on,
    // and the idle claim loops wait for the hold instead of looking for the job again and again. Each
    // loop looks after the run again (a pending job under a hold arms its next look for the hold's end,
    // a lease away; before, nothing was pending), takes nothing, and sets no timer sooner than that.
    const ranAgainAt = Date.now();
    const heldBack = (p: ClaimPassEvent) => p.nextLookAt !== null && p.nextLookAt.getTime() >= ranAgainAt + LEASE / 2;
    const looked = Promise.all([nextPass(a.passes$, heldBack), nextPass(b.passes$, heldBack)]);
    const again = await operator.runAgain(id);
    expect(again.state).toBe('pending');
    expect((await looked).map((p) => p.claimed)).toEqual([0, 0]);
    expect(runs.filter((r) => r.id === id)).toHaveLength(1);
    expect((await operator.getJob(id)).state).toBe('pending');
    // One wait on both workers' events (a race of two waits would leave the loser's timeout to fail a later test).
    const done = nextEvent(merge(a.events$, b.events$), (e) => e.job.id === id && e.to === 'completed', 20_000);
    gate.open!();
    await done;
    expect(runs.filter((r) => r.id === id)).toHaveLength(2);
    expect(overlaps(runs)).toEqual([]);
    expect((await operator.getJob(id)).state).toBe('completed');
  });

  it("a cancel from another connection aborts the running handler's signal well before any lease renewal", async () => {
    const runs: Run[] = [];
    const gate = gated();
    const a = worker(runs, gate, true);
    const operator = fx.open({ lease: LEASE });
    const { id } = await operator.enqueue('long', {});
    await a.start();
    const run = await startedRun(runs, id);
    const cancelledAt = Date.now();
    await operator.cancel(id);
    for (const until = Date.now() + 5_000; run.aborted === undefined && Date.now() < until; ) await new Promise((r) => setTimeout(r, 5));
    expect(run.aborted).toBeDefined();
    // Far below the lease's renewal (30 s here); the bench measures the figure itself.
    expect(run.aborted! - cancelledAt).toBeLessThan(5_000);
    gate.open!();
    // Once the run has returned, its hold is given back: the job may run again at once.
    for (const until = Date.now() + 5_000; Date.now() < until && (await operator.getJob(id)).leaseOwner !== undefined; ) await new Promise((r) => setTimeout(r, 20));
    const ended = await operator.getJob(id);
    expect(ended.state).toBe('cancelled');
    expect(ended.leaseOwner).toBeUndefined();
    const rerun = nextEvent(a.events$, (e) => e.job.id === id && e.to === 'completed', 20_000);
    await operator.runAgain(id);
    await rerun;
    expect(runs.filter((r) => r.id === id)).toHaveLength(2);
    expect(overlaps(runs)).toEqual([]);
  });

  it('a unique key stays with a cancelled job while its run goes on; remove is refused until the run ends', async () => {
    const runs: Run[] = [];
    const gate = gated();
    const a = worker(runs, gate, false);
    const operator = fx.open({ lease: LEASE });
    const first = await operator.enqueue('long', { k: 'one' }, { unique: { key: 'u', while: 'active' } });
    await a.start();
    await startedRun(runs, first.id);
    await operator.cancel(first.id);
    // Still running: the job shows who holds it, the key is the running job's, and the job may not be removed.
    expect((await operator.getJob(first.id)).leaseOwner).toBeDefined();
    const second = await operator.enqueue('long', { k: 'two' }, { unique: { key: 'u', while: 'active' } });
    expect(second).toMatchObject({ id: first.id, created: false });
    await expect(operator.remove(first.id)).rejects.toBeInstanceOf(InvalidTransitionError);
    gate.open!();
    for (const until = Date.now() + 5_000; Date.now() < until && (await operator.getJob(first.id)).leaseOwner !== undefined; ) await new Promise((r) => setTimeout(r, 20));
    // The run ended: the key is free, and the job can go.
    // Watched from before its enqueue: it may complete while the remove below is under way.
    const thirdDone = nextEvent(a.events$, (e) => e.job.name === 'long' && e.to === 'completed' && e.job.id !== first.id, 20_000);
    const third = await operator.enqueue('long', { k: 'three' }, { unique: { key: 'u', while: 'active' } });
    expect(third.created).toBe(true);
    await operator.remove(first.id);
    expect((await thirdDone).job.id).toBe(third.id);
    expect(overlaps(runs)).toEqual([]);
  });

  it('a job claimed ahead of time and cancelled elsewhere leaves its buffer, and gives its hold back, while its process is still busy', async () => {
    const runs: Run[] = [];
    const gate = gated();
    // One worker, busy with a long job, with the next job claimed ahead into its buffer.
    const busy = fx.open({
      lease: LEASE,
      concurrency: 1,
      prefetch: 4,
      jobs: [defineJob({ name: 'long', handler: () => gate.opened }), defineJob({ name: 'quick', handler: (_: unknown, ctx) => void runs.push({ id: ctx.jobId, attempt: ctx.attempt, start: Date.now() }) })],
    });
    const operator = fx.open({ lease: LEASE });
    await operator.enqueue('long', {});
    const { id } = await operator.enqueue('quick', {});
    await busy.start();
    for (const until = Date.now() + 10_000; Date.now() < until && (await operator.getJob(id)).state !== 'processing'; ) await new Promise((r) => setTimeout(r, 10));
    expect(runs).toEqual([]);
    await operator.cancel(id);
    // The busy process hears of the cancel and gives its hold back at once, not once a worker of its own is free.
    for (const until = Date.now() + 5_000; Date.now() < until && (await operator.getJob(id)).leaseOwner !== undefined; ) await new Promise((r) => setTimeout(r, 10));
    expect(await operator.getJob(id)).toMatchObject({ state: 'cancelled' });
    expect((await operator.getJob(id)).leaseOwner).toBeUndefined();
    // So a run again is claimable at once (by whichever process claims first), and runs once.
    const done = nextEvent(busy.events$, (e) => e.job.id === id && e.to === 'completed', 10_000);
    await operator.runAgain(id);
    gate.open!();
    await done;
    expect(runs.map((r) => r.id)).toEqual([id]);
  });

  it('every cancel from another connection reaches its running handler, one after another, while the worker polls too', async () => {
    const runs: Run[] = [];
    const gate = gated();
    const a = worker(runs, gate, true);
    const operator = fx.open({ lease: LEASE });
    await a.start();
    for (let i = 0; i < 8; i++) {
      const { id } = await operator.enqueue('long', {});
      const run = await startedRun(runs, id);
      await operator.cancel(id);
      for (const until = Date.now() + 3_000; run.aborted === undefined && Date.now() < until; ) await new Promise((r) => setTimeout(r, 5));
      // A hint used up by the claim loop's own poll would leave this run to its lease renewal, 30 s away.
      expect(run.aborted, `cancel ${i + 1} of 8`).toBeDefined();
    }
    gate.open!();
  });
});
