/**
 * Decisions made on a read that another connection changed before they took
 * effect. Two queues on one database, each with its own connection:
 *
 * - a job claimed ahead of time waits in B's buffer; A cancels it; its
 *   handler must never start in B, whether B reads the lease again at the
 *   job's start or confirms the buffer's leases ahead of time;
 * - retryDead({ where }) reads a page of dead jobs; meanwhile the other queue
 *   retries one, which dies again; the page's retry must not land on that
 *   later death (the attempts would run twice over);
 * - a cancel that deletes the job (retention 0) answers with the job as it
 *   ended, not a crash.
 */
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob, type Store } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent, waitFor } from '../helpers/wait.js';
import { START_CHECK_AFTER_MS } from '../../src/engine/claim/start-check.js';

const fx = useQueues();

/** A store whose `method` answers, then waits for `gate` before handing the answer back. */
function heldAfter(store: Store, method: 'browse' | 'list', gate: Promise<void>, reached: () => void): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      if (prop !== method) return (v as (...a: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        const out = await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        reached();
        await gate;
        return out;
      };
    },
  });
}

describe('a job claimed ahead of time and cancelled by another process', () => {
  it('never has its handler started', async () => {
    const clock = createVirtualClock(Date.parse('2026-06-01T00:00:00Z'));
    const ran: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let first: number | undefined;
    const b = fx.open({
      clock,
      concurrency: 1,
      prefetch: 4,
      jobs: [
        defineJob({
          name: 'j',
          handler: async (_p, ctx) => {
            ran.push(ctx.jobId);
            if (ctx.jobId === first) await gate;
            return 'ok';
          },
        }),
      ],
    });
    const [j1, j2, j3] = await b.enqueueMany([1, 2, 3].map((n) => ({ name: 'j', payload: { n } })));
    first = j1!.id;
    await b.start();
    await waitFor(() => ran.includes(j1!.id));
    // j2 and j3 came with j1's claim: they wait in B's buffer, leased to B.
    const a = fx.open({ clock });
    expect((await a.getJob(j2!.id)).state).toBe('processing');
    expect((await a.cancel(j2!.id)).state).toBe('cancelled');
    await clock.advance(START_CHECK_AFTER_MS);

    const j3done = nextEvent(b.events$, (e) => e.job.id === j3!.id && e.to === 'completed', 20_000);
    release();
    // Concurrency 1, buffer order j2 then j3: once j3 has completed, j2 was either started or dropped.
    await j3done;
    expect(ran).toEqual([j1!.id, j3!.id]);
    expect((await a.getJob(j2!.id)).state).toBe('cancelled');
  });
});

describe('the buffer confirmed ahead of the starts', () => {
  it('reads that confirm many waiting jobs at once drop a cancelled one, and the others start with no read of their own', async () => {
    const clock = createVirtualClock(Date.parse('2026-06-01T00:00:00Z'));
    const ran: number[] = [];
    // Each read of leases, with whether every job it reads had started by then (a read of running jobs, on a store hint).
    const reads: Array<{ ids: number[]; running: boolean }> = [];
    let answered!: () => void;
    const confirmed = new Promise<void>((r) => (answered = r));
    const store = fx.store();
    const counting = new Proxy(store, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== 'function') return v;
        if (prop !== 'held') return (v as (...a: unknown[]) => unknown).bind(target);
        return async (leases: Array<{ id: number }>) => {
          reads.push({ ids: leases.map((l) => l.id), running: leases.every((l) => ran.includes(l.id)) });
          const out = await (v as (l: unknown) => Promise<boolean[]>).call(target, leases);
          // The buffer's confirmation (of the waiting jobs), not the read of the running one a store hint asks for.
          if (leases.some((l) => l.id !== ids[0])) answered();
          return out;
        };
      },
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const ids: number[] = [];
    const b = fx.open({
      clock,
      store: counting,
      concurrency: 1,
      prefetch: 8,
      jobs: [
        defineJob({
          name: 'j',
          handler: async (_p, ctx) => {
            ran.push(ctx.jobId);
            if (ctx.jobId === ids[0]) await gate;
            // The second job holds the worker until the buffer's confirmation has answered (5 s at most: without one, the test fails on what ran).
            if (ctx.jobId === ids[1]) await Promise.race([confirmed, new Promise((r) => setTimeout(r, 5000))]);
            return 'ok';
          },
        }),
      ],
    });
    ids.push(...(await b.enqueueMany([1, 2, 3, 4, 5, 6].map((n) => ({ name: 'j', payload: { n } })))).map((r) => r.id));
    const all = ids.filter((_, i) => i !== 2);
    const done = Promise.all(all.map((id) => nextEvent(b.events$, (e) => e.job.id === id && e.to === 'completed', 20_000)));
    await b.start();
    await waitFor(() => ran.includes(ids[0]!));
    const a = fx.open({ clock });
    expect((await a.cancel(ids[2]!)).state).toBe('cancelled');
    // Near the start check's window's end (past its lead: twice a read's time, 10 ms at least), not past it.
    await clock.advance(START_CHECK_AFTER_MS - 5);
    release();
    await done;
    expect(ran).toEqual(all);
    // The other connection's cancel is heard as a hint: a read of the running jobs, one of the buffer (which drops the
    // cancelled job and confirms the others); the buffer's confirmation ahead of the starts may add one more. None at
    // any start: every read of jobs not yet running covers several. (Hints may also read the running job again, whichever
    // job runs then: those reads are not counted.)
    const waitingReads = reads.filter((r) => !r.running);
    expect(waitingReads.length, JSON.stringify(reads)).toBeGreaterThan(0);
    expect(waitingReads.length, JSON.stringify(reads)).toBeLessThanOrEqual(2);
    expect(waitingReads.every((r) => r.ids.length > 1), JSON.stringify(reads)).toBe(true);
    expect((await a.getJob(ids[2]!)).state).toBe('cancelled');
  });
});

describe('retryDead: no stale retry lands', () => {
  async function scenario(where: boolean) {
    let runs = 0;
    const b = fx.open({
      jobs: [
        defineJob({
          name: 'j',
          retry: { attempts: 1 },
          handler: () => {
            runs++;
            throw new Error('boom');
          },
        }),
      ],
    });
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let reached!: () => void;
    const atGate = new Promise<void>((r) => (reached = r));
    const a = fx.open({ store: heldAfter(fx.store(), where ? 'browse' : 'list', gate, reached) });

    const { id } = await b.enqueue('j', { tag: 'x' });
    const dead1 = nextEvent(b.events$, (e) => e.job.id === id && e.to === 'dead');
    await b.start();
    await dead1;

    // A reads its page of dead jobs and is held there.
    const retriedByA = a.retryDead(where ? { where: 'payload.tag = "x"' } : {});
    await atGate;
    // Meanwhile B retries the job; it runs and dies again.
    const dead2 = nextEvent(b.events$, (e) => e.job.id === id && e.to === 'dead');
    expect(await b.retryDead()).toBe(1);
    await dead2;
    open();
    // A's retry was decided on the first death: it must not land on the second.
    expect(await retriedByA).toBe(0);
    expect(runs).toBe(2);
    expect((await b.getJob(id)).state).toBe('dead');
    expect((await b.history(id)).filter((h) => h.event === 'job.retry')).toHaveLength(1);
  }

  it('a page of dead jobs (list) is retried only as it was read', () => scenario(false));
  it('a search of dead jobs (where) is retried only as it was read', () => scenario(true));
});

describe('a caller event that ends in a state kept for 0 ms', () => {
  it('cancel answers with the cancelled job, though its row is gone', async () => {
    const q = fx.open({ retention: { cancelled: 0 }, jobs: [defineJob({ name: 'j', handler: () => 'ok' })] });
    const { id } = await q.enqueue('j', {}, { delay: 60_000 });
    const job = await q.cancel(id);
    expect(job).toMatchObject({ id, name: 'j', state: 'cancelled' });
    await expect(q.getJob(id)).rejects.toMatchObject({ code: 'LJ_ERR_JOB_NOT_FOUND' });
  });
});
