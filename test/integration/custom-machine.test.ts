/**
 * A machine of the user's own (machines/examples/quarantine.machine.ts) runs
 * in a real queue: its extra state is persisted, `send` delivers its extra
 * event, and its own delayed edge fires through the scheduler.
 */
import { systemClock } from '../../src/lib/clock.js';
import { describe, expect, it } from 'vitest';
import { createQuarantineMachine, QUARANTINE_EXPIRY_MS } from '../../machines/examples/quarantine.machine.js';
import { assign } from 'xstate';
import { createJobMachine } from '../../machines/job.machine.js';
import { defineJob, InvalidTransitionError, ValidationError } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const fx = useQueues();

describe('a custom job machine with an extra state', () => {
  it('quarantines bad data, then a human approves it back to pending', async () => {
    let fixed = false;
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'import-row',
          machine: createQuarantineMachine,
          retry: { attempts: 3, backoff: { type: 'fixed', delay: 5 } },
          handler: (row: { email: string }) => {
            if (!fixed) throw new ValidationError(`bad email: ${row.email}`);
            return 'imported';
          },
        }),
      ],
    });
    const { id } = await q.enqueue('import-row', { email: 'nope' });
    const quarantined = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'quarantined');
    await q.start();
    expect((await quarantined).type).toBe('job:quarantined');
    expect(await q.getJob(id)).toMatchObject({ state: 'quarantined', attempts: 1, lastError: { name: 'ValidationError' } });
    expect((await q.stats()).byState).toEqual({ quarantined: 1 });

    await expect(q.retry(id)).rejects.toBeInstanceOf(InvalidTransitionError);
    fixed = true;
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.send(id, { type: 'job.approve' });
    await done;
    expect(await q.getJob(id)).toMatchObject({ state: 'completed', result: 'imported' });
    expect((await q.history(id)).map((h) => h.event)).toEqual([
      'job.enqueue', 'job.claim', 'job.fail', 'job.approve', 'job.claim', 'job.complete',
    ]);
  });

  it('a quarantined job nobody looks at goes to dead when its own delay runs out', async () => {
    let offset = 0;
    const clock = { ...systemClock, now: () => Date.now() + offset };
    const q = fx.open({
      clock,
      jobs: [
        defineJob({ name: 'import-row', machine: createQuarantineMachine, handler: () => { throw new ValidationError('bad'); } }),
        defineJob({ name: 'tick', handler: () => 'tock' }),
      ],
    });
    const { id } = await q.enqueue('import-row', {});
    const quarantined = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'quarantined');
    await q.start();
    const parked = await quarantined;
    expect(parked.runAt!.getTime() - parked.at.getTime()).toBe(QUARANTINE_EXPIRY_MS);
    offset = QUARANTINE_EXPIRY_MS + 1000; // a week passes
    const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead');
    await q.enqueue('tick', {}); // any activity lets the claim loop see the due job
    expect((await dead).event).toBe('xstate.after.quarantineExpiry.job.quarantined');
  });
});

describe('an event that keeps a running job in processing', () => {
  it("does not get lost when the worker's outcome lands after it: the outcome is decided again on the job as it is now", async () => {
    // A custom event on processing that writes the context and keeps the lease.
    const noting = (policy: Parameters<typeof createJobMachine>[0]) =>
      createJobMachine(policy, {
        on: { processing: { 'job.note': { actions: 'note' } } },
        actions: { note: assign(({ event }: { event: { type: string; text?: unknown } }) => ({ note: event.text })) },
      });
    let noted!: () => void;
    const gate = new Promise<void>((resolve) => (noted = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'long',
          machine: noting,
          handler: async () => {
            started();
            await gate;
            return 'done';
          },
        }),
      ],
    });
    const { id } = await q.enqueue('long', {});
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.start();
    await running;
    expect(await q.send(id, { type: 'job.note', text: 'checked by ops' })).toMatchObject({ state: 'processing' });
    noted();
    await done;
    const ctx = await fx.value<string>('SELECT ctx FROM jobs WHERE id = ?', [id]);
    expect(JSON.parse(ctx)).toMatchObject({ note: 'checked by ops' });
    expect(await q.getJob(id)).toMatchObject({ state: 'completed', result: 'done', attempts: 1 });
    expect((await q.history(id)).map((h) => h.event)).toEqual(['job.enqueue', 'job.claim', 'job.note', 'job.complete']);
  });
});

