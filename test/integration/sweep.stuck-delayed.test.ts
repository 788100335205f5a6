/**
 * A machine may have a delayed state whose every delayed edge is guarded
 * off: a job there is due (its time has passed) and no due event moves it.
 * The due sweep reads due jobs a batch at a time; a full batch that moves
 * nothing must end the sweep (reading it again would read the same batch
 * for ever, and on SQLite without ever yielding), so the queue goes on
 * running other jobs.
 */
import { expect, it } from 'vitest';
import { createJobMachine } from '../../machines/job.machine.js';
import { createVirtualClock, defineJob } from '../../src/index.js';
import { SWEEP_BATCH } from '../../src/engine/move/sweeps.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const fx = useQueues();

const holdingMachine = () =>
  createJobMachine(undefined, {
    on: { pending: { 'job.hold': { target: 'held' } } },
    states: { held: { after: { 1000: { target: 'pending', guard: 'never' } } } },
    guards: { never: () => false },
  });

it('a full batch of due jobs no due event can move ends the sweep; other jobs still run', async () => {
  const clock = createVirtualClock(Date.parse('2026-06-01T00:00:00Z'));
  const q = fx.open({
    clock,
    jobs: [defineJob({ name: 'stuck', machine: holdingMachine, handler: () => 'never' }), defineJob({ name: 'ok', handler: () => 'done' })],
  });
  const held = await q.enqueueMany(Array.from({ length: SWEEP_BATCH + 5 }, (_, i) => ({ name: 'stuck', payload: { i } })));
  for (const { id } of held) await q.send(id, { type: 'job.hold' });
  await clock.advance(2000);
  const { id } = await q.enqueue('ok', {});
  const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
  await q.start();
  await clock.advance(0);
  await done;
  expect((await q.stats()).byState).toMatchObject({ held: SWEEP_BATCH + 5, completed: 1 });
});
