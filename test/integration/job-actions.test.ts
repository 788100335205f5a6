/**
 * The day-to-day actions on jobs, on both stores: delete one, a selection or
 * a state's old jobs (with history and steps); run a finished job again;
 * promote a waiting one; ask which events a job accepts now.
 */
import { describe, expect, it } from 'vitest';
import { createQuarantineMachine } from '../../machines/examples/quarantine.machine.js';
import { z } from 'zod';
import { createVirtualClock, declareJob, defineJob, InvalidTransitionError, JobNotFoundError, ValidationError } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const fx = useQueues();
const HOUR = 3_600_000;

describe('remove', () => {
  it('deletes a job with its history and steps; its id is never handed out again', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'j', handler: async (_p, ctx) => ctx.step('one', () => 1) })] });
    const { id: first } = await q.enqueue('j', {});
    const done = nextEvent(q.events$, (e) => e.job.id === first && e.to === 'completed');
    await q.start();
    await done;
    await q.stop();
    const { id: newest } = await q.enqueue('j', {}, { delay: HOUR });
    expect((await q.steps(first)).length).toBe(1);
    await q.remove(first);
    await q.remove(newest);
    for (const id of [first, newest]) await expect(q.getJob(id)).rejects.toBeInstanceOf(JobNotFoundError);
    expect(await fx.value('SELECT count(*) FROM job_history WHERE job_id IN (?, ?)', [first, newest])).toBe(0);
    expect(await fx.value('SELECT count(*) FROM job_steps WHERE job_id = ?', [first])).toBe(0);
    expect((await q.enqueue('j', {}, { delay: HOUR })).id).toBeGreaterThan(newest);
    await expect(q.remove(newest)).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it('refuses a running job (cancel it first) and an unfinished flow child; a selection lists what it left and why', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const q = fx.open({ jobs: [defineJob({ name: 'hold', handler: () => held })] });
    const { id: busy } = await q.enqueue('hold', {});
    const started = nextEvent(q.events$, (e) => e.job.id === busy && e.to === 'processing');
    await q.start();
    await started;
    const flow = await q.enqueueFlow({ name: 'parent', payload: {}, children: [{ name: 'child', payload: {} }] });
    const child = flow.children[0]!.id;
    const { id: plain } = await q.enqueue('other', {});
    await expect(q.remove(busy)).rejects.toMatchObject({ code: 'LJ_ERR_INVALID_TRANSITION', state: 'processing', event: 'remove' });
    await expect(q.remove(child)).rejects.toBeInstanceOf(InvalidTransitionError);
    const outcome = await q.remove([plain, busy, 999_999, child, plain]);
    expect(outcome.removed).toEqual([plain]);
    expect(outcome.skipped.map((s) => [s.id, s.code])).toEqual([
      [busy, 'LJ_ERR_INVALID_TRANSITION'],
      [999_999, 'LJ_ERR_JOB_NOT_FOUND'],
      [child, 'LJ_ERR_INVALID_TRANSITION'],
    ]);
    expect((await q.getJob(busy)).state).toBe('processing');
    // The parent itself holds no worker: it may go (its children run on, counting for nobody).
    await q.remove(flow.id);
    release();
  });

  it('a job read pending and claimed by another process before the delete is not deleted under its handler', async () => {
    const inner = fx.store();
    let between: (() => Promise<void>) | undefined;
    const a = fx.open({
      store: {
        ...inner,
        removeJobs: async (targets, at) => {
          const hook = between;
          between = undefined;
          await hook?.();
          return inner.removeJobs(targets, at);
        },
      },
    });
    const { id } = await a.enqueue('j', {});
    between = async () => {
      await fx.sql("UPDATE jobs SET state = 'processing', lease_token = 'other', lease_owner = 'b', locked_until = ?, version = version + 1 WHERE id = ?", [Date.now() + HOUR, id]);
    };
    await expect(a.remove(id)).rejects.toMatchObject({ code: 'LJ_ERR_INVALID_TRANSITION', state: 'processing' });
    expect((await a.getJob(id)).state).toBe('processing');
  });
});

describe('clean', () => {
  it('deletes the jobs of a state (and name) in it since before a time, up to a limit', async () => {
    const clock = createVirtualClock(Date.parse('2026-06-01T00:00:00Z'));
    const q = fx.open({ clock });
    const old = await q.enqueueMany([1, 2, 3].map((n) => ({ name: n === 3 ? 'b' : 'a', payload: { n } })));
    for (const r of old) await q.cancel(r.id);
    await clock.advance(2 * HOUR);
    const fresh = await q.enqueue('a', {});
    await q.cancel(fresh.id);
    const pending = await q.enqueue('a', {});
    expect(await q.clean({ state: 'cancelled', name: 'a', olderThan: '1h', limit: 1 })).toBe(1);
    expect(await q.clean({ state: 'cancelled', name: 'a', olderThan: '1h' })).toBe(1);
    expect(await q.clean({ state: 'cancelled', olderThan: new Date(clock.now() - HOUR) })).toBe(1); // the `b` one
    expect((await q.listJobs({ state: 'cancelled' })).map((j) => j.id)).toEqual([fresh.id]);
    expect(await q.clean({ state: 'pending', olderThan: 0 })).toBe(1);
    await expect(q.getJob(pending.id)).rejects.toBeInstanceOf(JobNotFoundError);
    expect(await q.clean({ state: 'cancelled', olderThan: 0 })).toBe(1);
  });

  it('never takes running jobs nor unfinished flow children; bad options are typed errors', async () => {
    const q = fx.open();
    const flow = await q.enqueueFlow({ name: 'p', payload: {}, children: [{ name: 'c', payload: {} }] });
    const { id: plain } = await q.enqueue('c', {});
    expect(await q.clean({ state: 'pending', olderThan: 0 })).toBe(1);
    expect((await q.getJob(flow.children[0]!.id)).state).toBe('pending');
    await expect(q.getJob(plain)).rejects.toBeInstanceOf(JobNotFoundError);
    await expect(q.clean({ state: 'processing', olderThan: 0 })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await expect(q.clean({ state: 'dead', olderThan: 'soon' } as never)).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await expect(q.clean({ state: 'dead', olderThan: 0, extra: 1 } as never)).rejects.toMatchObject({ code: 'LJ_ERR_UNKNOWN_OPTION' });
  });
});

describe('run again and promote', () => {
  it('runs a completed job again with a fresh set of attempts, and a cancelled one; the history says job.rerun', async () => {
    let runs = 0;
    const q = fx.open({ jobs: [defineJob({ name: 'j', handler: () => ++runs })] });
    const { id } = await q.enqueue('j', {});
    const { id: later } = await q.enqueue('j', {}, { delay: HOUR });
    await q.cancel(later);
    let done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.start();
    await done;
    await expect(q.runAgain(later)).resolves.toMatchObject({ id: later });
    done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    expect(['pending', 'processing', 'completed']).toContain((await q.runAgain(id)).state);
    await done;
    expect(await q.getJob(id)).toMatchObject({ state: 'completed', attempts: 1 });
    expect((await q.history(id)).map((h) => h.event)).toEqual(['job.enqueue', 'job.claim', 'job.complete', 'job.rerun', 'job.claim', 'job.complete']);
    await expect(q.runAgain(id + 1000)).rejects.toBeInstanceOf(JobNotFoundError);
    const { id: waiting } = await q.enqueue('j', {}, { delay: HOUR });
    await expect(q.runAgain(waiting)).rejects.toMatchObject({ code: 'LJ_ERR_INVALID_TRANSITION', event: 'job.rerun' });
  });

  it('promotes a delayed job, and a retry waiting out its backoff, to due now', async () => {
    const clock = createVirtualClock(Date.parse('2026-06-01T00:00:00Z'));
    const q = fx.open({ clock });
    const { id: delayed } = await q.enqueue('j', {}, { delay: HOUR });
    expect((await q.promote(delayed)).runAt.getTime()).toBe(clock.now());
    await fx.sql("UPDATE jobs SET state = 'failed', attempts = 1, run_at = ?, version = version + 1 WHERE id = ?", [clock.now() + HOUR, delayed]);
    const promoted = await q.promote(delayed);
    expect(promoted).toMatchObject({ state: 'pending', attempts: 1 });
    expect(promoted.runAt.getTime()).toBe(clock.now());
    expect((await q.history(delayed)).filter((h) => h.event === 'job.promote').map((h) => h.from)).toEqual(['pending', 'failed']);
    await q.cancel(delayed);
    await expect(q.promote(delayed)).rejects.toMatchObject({ code: 'LJ_ERR_INVALID_TRANSITION' });
  });
});

describe('acceptedEvents', () => {
  it("lists the caller's events the job's machine accepts in its state, custom ones included", async () => {
    const quarantine = defineJob({ name: 'import', machine: createQuarantineMachine(), handler: () => 'ok' });
    const q = fx.open({ jobs: [quarantine] });
    const { id } = await q.enqueue('import', {});
    expect((await q.acceptedEvents(id)).sort()).toEqual(['job.cancel', 'job.promote']);
    await fx.sql("UPDATE jobs SET state = 'quarantined', version = version + 1 WHERE id = ?", [id]);
    expect((await q.acceptedEvents(id)).sort()).toEqual(['job.approve', 'job.cancel']);
    await q.cancel(id);
    expect(await q.acceptedEvents(id)).toEqual(['job.rerun']);
    await expect(q.acceptedEvents(id + 1000)).rejects.toBeInstanceOf(JobNotFoundError);
  });
});

describe('listJobs newest first', () => {
  it('listJobs({ newest: true }) lists newest first, paging towards older jobs with after', async () => {
    const q = fx.open();
    const ids = (await q.enqueueMany([1, 2, 3].map((n) => ({ name: 'a', payload: { n } })))).map((r) => r.id);
    expect((await q.listJobs({ newest: true, limit: 2 })).map((j) => j.id)).toEqual([ids[2], ids[1]]);
    expect((await q.listJobs({ newest: true, after: ids[1] })).map((j) => j.id)).toEqual([ids[0]]);
    await expect(q.listJobs({ newest: 'yes' } as never)).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
  });
});

describe('update', () => {
  it("changes a pending job's priority, run time and payload (validated by its schema); the history says job.update", async () => {
    const clock = createVirtualClock(Date.parse('2026-06-01T00:00:00Z'));
    const q = fx.open({ clock, jobs: [declareJob('mail', { schema: z.object({ to: z.string().email() }) })] });
    const { id } = await q.enqueue('mail', { to: 'ada@example.com' }, { delay: HOUR });
    const later = await q.update(id, { priority: 7 });
    expect(later).toMatchObject({ state: 'pending', priority: 7 });
    expect(later.runAt.getTime()).toBe(clock.now() + HOUR); // kept
    const moved = await q.update(id, { delay: '5m', payload: { to: 'grace@example.com' } });
    expect(moved).toMatchObject({ priority: 7, payload: { to: 'grace@example.com' } });
    expect(moved.runAt.getTime()).toBe(clock.now() + 5 * 60_000);
    expect((await q.update(id, { runAt: new Date(clock.now() + HOUR) })).runAt.getTime()).toBe(clock.now() + HOUR);
    await expect(q.update(id, { payload: { to: 'not an address' } })).rejects.toMatchObject({ code: 'LJ_ERR_INVALID_PAYLOAD' });
    expect((await q.getJob(id)).payload).toEqual({ to: 'grace@example.com' });
    expect((await q.history(id)).filter((h) => h.event === 'job.update')).toHaveLength(3);
    for (const bad of [{}, { priority: 1.5 }, { runAt: 1, delay: 1 }, { colour: 'red' }]) {
      await expect(q.update(id, bad as never)).rejects.toBeInstanceOf(ValidationError);
    }
    await expect(q.send(id, { type: 'job.update' })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    expect(await q.acceptedEvents(id)).not.toContain('job.update');
    await q.cancel(id);
    await expect(q.update(id, { priority: 1 })).rejects.toMatchObject({ code: 'LJ_ERR_INVALID_TRANSITION', state: 'cancelled', event: 'job.update' });
  });

  it('a job claimed by another process between the read and the write is not changed under its handler', async () => {
    const inner = fx.store();
    let between: (() => Promise<void>) | undefined;
    const a = fx.open({
      store: {
        ...inner,
        transition: async (reqs) => {
          const hook = between;
          between = undefined;
          await hook?.();
          return inner.transition(reqs);
        },
      },
    });
    const { id } = await a.enqueue('j', { v: 1 });
    between = async () => {
      await fx.sql("UPDATE jobs SET state = 'processing', lease_token = 'other', lease_owner = 'b', locked_until = ?, version = version + 1 WHERE id = ?", [Date.now() + HOUR, id]);
    };
    await expect(a.update(id, { payload: { v: 2 } })).rejects.toMatchObject({ code: 'LJ_ERR_INVALID_TRANSITION', state: 'processing' });
    expect((await a.getJob(id)).payload).toEqual({ v: 1 });
  });
});

