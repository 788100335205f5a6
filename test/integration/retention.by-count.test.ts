/**
 * Retention by count and per job name (BullMQ's `removeOnComplete: { count }`,
 * `removeOnFail: { age, count }`, different settings per job): a state keeps
 * the newest N of each name, an age, or both, at the queue or on `defineJob`
 * (which replaces the queue's for the states it names).
 */
import { describe, expect, it } from 'vitest';
import { defineJob, type Queue, type QueueOptions } from '../../src/index.js';
import { systemClock } from '../../src/lib/clock.js';
import { ValidationError } from '../../src/errors.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events, waitFor } from '../helpers/wait.js';

const fx = useQueues();

const ids = (name: string, state: string) => fx.sql<{ id: number }>('SELECT id FROM jobs WHERE name = ? AND state = ? ORDER BY id', [name, state]).then((rows) => rows.map((r) => Number(r.id)));
const ok = (name: string, retention?: QueueOptions['retention']) => defineJob({ name, handler: () => name, ...(retention ? { retention } : {}) });
const bad = (name: string, retention?: QueueOptions['retention']) => defineJob({ name, retry: { attempts: 1 }, handler: (): void => { throw new Error('no'); }, ...(retention ? { retention } : {}) });

/** Runs `n` jobs of each name one at a time (so they finish in id order); the queue stays started. */
async function runAll(q: Queue, names: readonly string[], n: number): Promise<Record<string, number[]>> {
  const made: Record<string, number[]> = {};
  for (const name of names) made[name] = (await q.enqueueMany(Array.from({ length: n }, (_, i) => ({ name, payload: i })))).map((r) => r.id);
  const done = events(q.events$, (e) => e.to === 'completed' || e.to === 'dead', names.length * n);
  await q.start();
  await done;
  return made;
}

/** Starts the queue again (a start runs a retention pass at once) and waits until each name's jobs of a state are `want`, then stops it. */
async function afterPass(q: Queue, want: ReadonlyArray<[name: string, state: string, ids: readonly number[]]>): Promise<void> {
  await q.stop();
  await q.start();
  const now = async () => Promise.all(want.map(([name, state]) => ids(name, state)));
  await waitFor(async () => JSON.stringify(await now()) === JSON.stringify(want.map(([, , v]) => v))).catch(() => undefined);
  await q.stop();
  expect(await now()).toEqual(want.map(([, , v]) => v));
}

describe('retention by count and per job name', () => {
  it('keeps the newest N of a state per job name', async () => {
    const q = fx.open({ concurrency: 1, prefetch: 0, retention: { completed: { count: 3 } }, jobs: [ok('a'), ok('b')] });
    const made = await runAll(q, ['a', 'b'], 8);
    await afterPass(q, [['a', 'completed', made.a!.slice(-3)], ['b', 'completed', made.b!.slice(-3)]]);
  });

  it('a name\'s own retention replaces the queue\'s for the states it names; the others follow the queue', async () => {
    const q = fx.open({
      concurrency: 1,
      prefetch: 0,
      retention: { completed: 0, dead: { count: 1 } },
      jobs: [ok('plain'), ok('kept', { completed: { count: 2 } }), bad('failing'), bad('failing-kept', { dead: { count: 3 } })],
    });
    const made = await runAll(q, ['plain', 'kept', 'failing', 'failing-kept'], 5);
    await afterPass(q, [
      ['plain', 'completed', []],
      ['kept', 'completed', made.kept!.slice(-2)],
      ['failing', 'dead', made.failing!.slice(-1)],
      ['failing-kept', 'dead', made['failing-kept']!.slice(-3)],
    ]);
  });

  it('an age and a count together: a job goes when either says so; a name\'s own age outlives the queue\'s', async () => {
    let offset = 0;
    const clock = { ...systemClock, now: () => Date.now() + offset };
    const q = fx.open({
      clock,
      concurrency: 1,
      prefetch: 0,
      retention: { dead: { age: '1h', count: 3 }, completed: '1h' },
      jobs: [bad('f'), ok('short'), ok('long', { completed: '1d' })],
    });
    const made = await runAll(q, ['f', 'short', 'long'], 4);
    await afterPass(q, [['f', 'dead', made.f!.slice(-3)], ['short', 'completed', made.short!]]);
    offset = 2 * 3_600_000;
    await afterPass(q, [['f', 'dead', []], ['short', 'completed', []], ['long', 'completed', made.long!]]);
    offset = 2 * 86_400_000;
    await afterPass(q, [['long', 'completed', []]]);
  });

  it('refuses a rule that is not an age, a count or both', () => {
    const refused = (retention: unknown) => expect(() => fx.open({ retention } as QueueOptions)).toThrow(ValidationError);
    refused({ completed: { count: -1 } });
    refused({ completed: { count: 1.5 } });
    refused({ completed: {} });
    refused({ completed: { age: '1d', keep: 3 } });
    refused({ failed: '1d' });
    refused('1d');
    refused({ completed: 1e300 });
    refused({ dead: { age: 1e300 } });
    refused({ completed: 0, outcome: 1e300 });
    expect(() => defineJob({ name: 'x', handler: () => 1, retention: { dead: { count: 'ten' } } } as never)).toThrow(/job "x" retention.dead.count/);
  });
});
