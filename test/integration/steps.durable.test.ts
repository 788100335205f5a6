/**
 * Durable steps in handlers: ctx.step stores each completed step's result
 * and a later attempt replays it without running it again; ctx.sleep parks
 * the job in `sleeping` (no worker held, no attempt spent) until its wake
 * time, then the job runs again from its first unfinished step.
 */
import { describe, expect, it } from 'vitest';
import { createMachine, type AnyStateMachine } from 'xstate';
import { createJobMachine } from '../../machines/job.machine.js';
import { createVirtualClock, defineJob, type HandlerContext, type Queue, type VirtualClock } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent, waitFor } from '../helpers/wait.js';

const fx = useQueues();
const fast = { backoff: { type: 'fixed', delay: 0 } } as const;

/** Polls (real time) until `condition`, moving the virtual clock by 0 so timers armed in the past fire. */
async function until(clock: VirtualClock | undefined, condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await clock?.advance(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const stateOf = async (q: Queue, id: number) => (await q.getJob(id)).state;

describe('ctx.step', () => {
  it('replays completed steps on the next attempt and goes on at the first unfinished one', async () => {
    const calls = { one: 0, two: 0, three: 0 };
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'order',
          retry: { ...fast, attempts: 3 },
          handler: async (p: { n: number }, ctx) => {
            const a = await ctx.step('reserve', () => ++calls.one * 10 + p.n);
            const b = await ctx.step('charge', async () => ({ charged: a, at: ++calls.two }));
            const c = await ctx.step('ship', () => {
              calls.three++;
              if (ctx.attempt === 1) throw new Error('carrier down');
              return `shipped ${b.charged}`;
            });
            return { a, b, c };
          },
        }),
      ],
    });
    const { id } = await q.enqueue('order', { n: 1 });
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.start();
    await done;
    expect(calls).toEqual({ one: 1, two: 1, three: 2 });
    const job = await q.getJob(id);
    expect(job).toMatchObject({ state: 'completed', attempts: 2, result: { a: 11, b: { charged: 11, at: 1 }, c: 'shipped 11' } });
    const steps = await q.steps(id);
    expect(steps.map((s) => [s.seq, s.name, s.result, s.attempt, s.wakeAt])).toEqual([
      [1, 'reserve', 11, 1, null],
      [2, 'charge', { charged: 11, at: 1 }, 1, null],
      [3, 'ship', 'shipped 11', 2, null],
    ]);
    expect(steps[0]!.at).toBeInstanceOf(Date);
  });

  it('a retry of a dead job carries on from its steps; running a finished job again (job.rerun) starts afresh without them', async () => {
    let runs = 0;
    let failShip = true;
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'order',
          retry: { ...fast, attempts: 1 },
          handler: async (_p: unknown, ctx) => {
            const n = await ctx.step('reserve', () => ++runs);
            await ctx.step('ship', () => {
              if (failShip) throw new Error('carrier down');
              return 'shipped';
            });
            return n;
          },
        }),
      ],
    });
    const { id } = await q.enqueue('order', {});
    const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead');
    await q.start();
    await dead;
    failShip = false;
    const completed = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.retry(id);
    await completed;
    // The retry replayed `reserve`: one run of it, the same result.
    expect([runs, (await q.getJob(id)).result]).toEqual([1, 1]);
    expect((await q.steps(id)).map((s) => [s.name, s.result])).toEqual([['reserve', 1], ['ship', 'shipped']]);

    const again = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.runAgain(id);
    await again;
    expect([runs, (await q.getJob(id)).result]).toEqual([2, 2]);
    expect((await q.steps(id)).map((s) => [s.seq, s.name, s.result])).toEqual([[1, 'reserve', 2], [2, 'ship', 'shipped']]);
  });

  it('round-trips undefined, and returns what JSON keeps on the first run as on a replay', async () => {
    const seen: unknown[] = [];
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'shapes',
          retry: { ...fast, attempts: 2 },
          handler: async (_p, ctx) => {
            seen.push(await ctx.step('nothing', () => undefined), await ctx.step('date', () => new Date(0)));
            if (ctx.attempt === 1) throw new Error('again');
          },
        }),
      ],
    });
    const { id } = await q.enqueue('shapes', null);
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.start();
    await done;
    expect(seen).toEqual([undefined, '1970-01-01T00:00:00.000Z', undefined, '1970-01-01T00:00:00.000Z']);
    expect((await q.steps(id)).map((s) => s.result)).toEqual([undefined, '1970-01-01T00:00:00.000Z']);
  });

  it('fails the attempt with DuplicateStepError when a run uses a name twice', async () => {
    let ran = 0;
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'twice',
          retry: { attempts: 1 },
          handler: async (_p, ctx) => {
            await ctx.step('same', () => ++ran);
            await ctx.step('same', () => ++ran);
          },
        }),
      ],
    });
    const { id } = await q.enqueue('twice', null);
    const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead');
    await q.start();
    await dead;
    expect(ran).toBe(1);
    expect((await q.getJob(id)).lastError).toMatchObject({ name: 'DuplicateStepError', code: 'LJ_ERR_DUPLICATE_STEP' });
    expect((await q.steps(id)).map((s) => s.name)).toEqual(['same']);
  });

  it('refuses a result JSON cannot hold, and a bad name, before anything is stored', async () => {
    const q = fx.open({
      jobs: [
        defineJob({ name: 'bigint', retry: { attempts: 1 }, handler: (_p, ctx) => ctx.step('big', () => 1n) }),
        defineJob({ name: 'fn', retry: { attempts: 1 }, handler: (_p, ctx) => ctx.step('fn', () => () => 1) }),
        defineJob({ name: 'nameless', retry: { attempts: 1 }, handler: (_p, ctx) => ctx.step('', () => 1) }),
        defineJob({ name: 'long', retry: { attempts: 1 }, handler: (_p, ctx) => ctx.step('x'.repeat(201), () => 1) }),
      ],
    });
    const ids = await Promise.all(['bigint', 'fn', 'nameless', 'long'].map(async (name) => (await q.enqueue(name, null)).id));
    await q.start();
    for (const id of ids) await until(undefined, async () => (await stateOf(q, id)) === 'dead', `job ${id} to die`);
    const errors = await Promise.all(ids.map(async (id) => (await q.getJob(id)).lastError));
    expect(errors.map((e) => [e?.name, e?.code])).toEqual([
      ['ValidationError', 'LJ_ERR_PAYLOAD_NOT_JSON'],
      ['ValidationError', 'LJ_ERR_PAYLOAD_NOT_JSON'],
      ['ValidationError', 'LJ_ERR_VALIDATION'],
      ['ValidationError', 'LJ_ERR_VALIDATION'],
    ]);
    for (const id of ids) expect(await q.steps(id)).toEqual([]);
  });

  it('throws LeaseLostError from a step once the job was cancelled under it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let thrown: unknown;
    let second = 0;
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'cancelled',
          handler: async (_p, ctx: HandlerContext) => {
            await ctx.step('first', () => 1);
            await gate;
            try {
              await ctx.step('second', () => ++second);
            } catch (err) {
              thrown = err;
            }
          },
        }),
      ],
    });
    const { id } = await q.enqueue('cancelled', null);
    const running = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'processing');
    await q.start();
    await running;
    await until(undefined, async () => (await q.steps(id)).length === 1, 'the first step');
    await q.cancel(id);
    release();
    await waitFor(() => thrown !== undefined);
    expect(thrown).toMatchObject({ name: 'LeaseLostError', code: 'LJ_ERR_LEASE_LOST' });
    // The step ran (its result could not be stored): only the first is recorded.
    expect(second).toBe(1);
    expect((await q.steps(id)).map((s) => s.name)).toEqual(['first']);
  });
});

describe('ctx.sleep', () => {
  const START = 1_700_000_000_000;

  function sleeper(clock: VirtualClock, calls: { before: number; after: number }) {
    return defineJob({
      name: 'sleeper',
      retry: { ...fast, attempts: 1 },
      handler: async (_p, ctx) => {
        const a = await ctx.step('before', () => ++calls.before);
        await ctx.sleep('nap', '5m');
        const b = await ctx.step('after', () => ++calls.after);
        return { a, b, at: clock.now() - START };
      },
    });
  }

  it('parks the job in sleeping without a worker or an attempt, then finishes it after the wake time', async () => {
    const clock = createVirtualClock(START);
    const calls = { before: 0, after: 0 };
    const other: number[] = [];
    const q = fx.open({
      clock,
      concurrency: 1,
      jobs: [sleeper(clock, calls), defineJob({ name: 'other', handler: (p: { n: number }) => void other.push(p.n) })],
    });
    const { id } = await q.enqueue('sleeper', null);
    await q.start();
    await until(clock, async () => (await stateOf(q, id)) === 'sleeping', 'the job to sleep');
    const asleep = await q.getJob(id);
    expect(asleep).toMatchObject({ attempts: 0, runAt: new Date(START + 5 * 60_000) });
    expect(asleep.leaseOwner).toBeUndefined();
    // The only worker is free: other jobs run meanwhile.
    await q.enqueue('other', { n: 1 });
    await q.enqueue('other', { n: 2 });
    await until(clock, () => other.length === 2, 'the other jobs');
    expect(await stateOf(q, id)).toBe('sleeping');
    await clock.advance(5 * 60_000 - 1);
    expect(await stateOf(q, id)).toBe('sleeping');
    await clock.advance(1);
    await until(clock, async () => (await stateOf(q, id)) === 'completed', 'the job to complete');
    expect(calls).toEqual({ before: 1, after: 1 });
    const job = await q.getJob(id);
    expect(job).toMatchObject({ attempts: 1, result: { a: 1, b: 1, at: 5 * 60_000 } });
    expect((await q.history(id)).map((h) => [h.from, h.to])).toEqual([
      [null, 'pending'],
      ['pending', 'processing'],
      ['processing', 'sleeping'],
      ['sleeping', 'pending'],
      ['pending', 'processing'],
      ['processing', 'completed'],
    ]);
    const steps = await q.steps(id);
    expect(steps.map((s) => [s.name, s.seq, s.wakeAt?.getTime() ?? null])).toEqual([
      ['before', 1, null],
      ['nap', 2, START + 5 * 60_000],
      ['after', 3, null],
    ]);
  });

  it('parks even when the handler catches the signal and returns; a step called after it throws it again', async () => {
    const clock = createVirtualClock(START);
    const seen: string[] = [];
    let after = 0;
    const q = fx.open({
      clock,
      jobs: [
        defineJob({
          name: 'swallower',
          retry: { attempts: 1 },
          handler: async (_p, ctx) => {
            try {
              await ctx.sleep('nap', '5m');
            } catch {
              seen.push('caught');
              await ctx.step('after', () => ++after).catch(() => seen.push('step refused'));
              return 'swallowed';
            }
            return ctx.step('after', () => ++after);
          },
        }),
      ],
    });
    const { id } = await q.enqueue('swallower', null);
    await q.start();
    await until(clock, async () => (await stateOf(q, id)) === 'sleeping', 'the job to sleep');
    expect(seen).toEqual(['caught', 'step refused']);
    expect(after).toBe(0);
    await clock.advance(5 * 60_000);
    await until(clock, async () => (await stateOf(q, id)) === 'completed', 'the job to complete');
    expect(await q.getJob(id)).toMatchObject({ result: 1, attempts: 1 });
    expect(after).toBe(1);
  });

  it('parks again for the rest when the job runs before its wake time', async () => {
    const clock = createVirtualClock(START);
    const calls = { before: 0, after: 0 };
    const q = fx.open({ clock, jobs: [sleeper(clock, calls)] });
    const { id } = await q.enqueue('sleeper', null);
    await q.start();
    await until(clock, async () => (await stateOf(q, id)) === 'sleeping', 'the job to sleep');
    await clock.advance(60_000);
    // Woken early (a job machine's own edge would do the same): it sleeps the 4 minutes left.
    await fx.sql("UPDATE jobs SET state = 'pending', run_at = ? WHERE id = ?", [clock.now(), id]);
    await q.enqueue('sleeper', null); // a new job wakes the claim loop
    await until(clock, async () => (await q.history(id)).filter((h) => h.to === 'sleeping').length === 2, 'the second sleep');
    expect(await q.getJob(id)).toMatchObject({ state: 'sleeping', runAt: new Date(START + 5 * 60_000) });
    await clock.advance(4 * 60_000);
    await until(clock, async () => (await stateOf(q, id)) === 'completed', 'the job to complete');
    expect((await q.getJob(id)).result).toMatchObject({ a: 1, at: 5 * 60_000 });
  });

  it('can be cancelled while sleeping', async () => {
    const clock = createVirtualClock(START);
    const calls = { before: 0, after: 0 };
    const q = fx.open({ clock, jobs: [sleeper(clock, calls)] });
    const { id } = await q.enqueue('sleeper', null);
    await q.start();
    await until(clock, async () => (await stateOf(q, id)) === 'sleeping', 'the job to sleep');
    expect((await q.cancel(id)).state).toBe('cancelled');
    await clock.advance(10 * 60_000);
    expect(await stateOf(q, id)).toBe('cancelled');
    expect(calls).toEqual({ before: 1, after: 0 });
  });

  it('returns at once for a sleep of 0, recording it', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'zero', handler: async (_p, ctx) => { await ctx.sleep('none', 0); return 'done'; } })] });
    const { id } = await q.enqueue('zero', null);
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.start();
    await done;
    expect((await q.history(id)).some((h) => h.to === 'sleeping')).toBe(false);
    expect((await q.steps(id)).map((s) => s.name)).toEqual(['none']);
  });

  it('refuses a sleep past what a Date holds as enqueue refuses such a delay: the attempt fails, nothing parked or recorded', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'far', retry: { attempts: 1 }, handler: async (_p, ctx) => ctx.sleep('nap', 1e300) })] });
    const { id } = await q.enqueue('far', null);
    const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead');
    await q.start();
    await dead;
    const job = await q.getJob(id);
    expect(job.lastError).toMatchObject({ name: 'ValidationError', message: expect.stringMatching(/ctx\.sleep\("nap"\) delay must be a number from 0 to/) });
    expect(await q.steps(id)).toEqual([]);
    expect((await q.history(id)).some((h) => h.to === 'sleeping')).toBe(false);
  });

  it('fails the attempt with a clear error when the job machine cannot park', async () => {
    // The base machine without its job.sleep edge.
    const base = createJobMachine({ attempts: 1 });
    const config = base.config as { states: Record<string, { on: Record<string, unknown> }> };
    const { 'job.sleep': _dropped, ...on } = config.states.processing!.on;
    const machine = createMachine(
      { ...(base.config as object), states: { ...config.states, processing: { ...config.states.processing, on } } } as never,
      base.implementations as never,
    ) as AnyStateMachine;
    const q = fx.open({ jobs: [defineJob({ name: 'insomniac', machine, handler: async (_p, ctx) => ctx.sleep('nap', '1h') })] });
    const { id } = await q.enqueue('insomniac', null);
    const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead');
    await q.start();
    await dead;
    const { lastError } = await q.getJob(id);
    expect(lastError).toMatchObject({ name: 'ValidationError', code: 'LJ_ERR_VALIDATION' });
    expect(lastError?.message).toMatch(/has no "job.sleep" edge from "processing"/);
    expect(await q.steps(id)).toEqual([]);
  });
});
