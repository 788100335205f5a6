/**
 * Limits changed while the queue runs (queue.setLimits, resetLimits): made in
 * one connection, taken up by a queue running in another within a second,
 * over its definitions' limits; a null turns a limit off; reset gives the
 * name back to its definitions. Bad changes are refused, writing nothing.
 */
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { untilOnClock, waitFor } from '../helpers/wait.js';

const fx = useQueues();

/** A handler each run of which waits until the test lets it end. */
function gated() {
  const running: Array<() => void> = [];
  const handler = () => new Promise<void>((done) => running.push(done));
  const endAll = () => {
    for (const done of running.splice(0)) done();
  };
  return { handler, running, endAll };
}

describe('limits changed while the queue runs', () => {
  it("another connection's globalConcurrency change reaches a running queue; null turns it off; reset gives back the definition's", async () => {
    const g = gated();
    const worker = fx.open({ concurrency: 10, jobs: [defineJob({ name: 'g', globalConcurrency: 1, handler: g.handler })] });
    const operator = fx.open();
    await worker.enqueueMany(Array.from({ length: 6 }, (_, i) => ({ name: 'g', payload: i })));
    await worker.start();
    await waitFor(() => g.running.length === 1);

    const raised = await operator.setLimits('g', { globalConcurrency: 3 });
    expect(raised).toMatchObject({ name: 'g', globalConcurrency: 3, changed: { globalConcurrency: 3 } });
    await waitFor(() => g.running.length === 3);

    await operator.setLimits('g', { globalConcurrency: null });
    await waitFor(() => g.running.length === 6);
    expect((await worker.limits()).names.find((n) => n.name === 'g')).toMatchObject({ globalConcurrency: null, changed: { globalConcurrency: null } });

    // The operator's queue does not define 'g': it answers with no limit; the worker's definition holds again.
    expect(await operator.resetLimits('g')).toMatchObject({ name: 'g', globalConcurrency: null });
    const back = (await worker.limits()).names.find((n) => n.name === 'g')!;
    expect(back).toMatchObject({ name: 'g', globalConcurrency: 1 });
    expect(back.changed).toBeUndefined();
    g.endAll();
    await worker.stop();
  });

  it('a rate limit set on a name its definition leaves unlimited binds every claim from then on, on the database clock', async () => {
    const clock = createVirtualClock(Date.now());
    const worker = fx.open({ clock, jobs: [defineJob({ name: 'r', handler: () => 'ok' })] });
    const operator = fx.open({ clock });
    await operator.setLimits('r', { rateLimit: { max: 2, per: '1h' } });
    await worker.enqueueMany(Array.from({ length: 5 }, (_, i) => ({ name: 'r', payload: i })));
    await worker.start();
    const completed = async () => Number(await fx.value("SELECT count(*) FROM jobs WHERE state = 'completed'"));
    await untilOnClock(clock, async () => (await completed()) === 2, 'two runs within the rate');
    await clock.advance(5000);
    expect(await completed()).toBe(2);
    // Turned off: the rest run at once (taken up within a second).
    await operator.setLimits('r', { rateLimit: null });
    // Half a second a look: a limits read still under way when the clock moved arms its next from the moved clock.
    await untilOnClock(clock, async () => (await completed()) === 5, 'the rest, once the rate is off', 20_000, 500);
    await worker.stop();
  });

  it('two connections changing different limits of one name at once both land', async () => {
    const a = fx.open();
    const b = fx.open();
    await Promise.all([a.ping(), b.ping()]);
    await Promise.all([a.setLimits('n', { globalConcurrency: 4 }), b.setLimits('n', { rateLimit: { max: 10, per: 1000 } }), a.setLimits('n', { groupConcurrency: 2 })]);
    expect((await b.limits()).names.find((n) => n.name === 'n')).toMatchObject({
      globalConcurrency: 4,
      groupConcurrency: 2,
      rateLimit: { max: 10, perMs: 1000, perGroup: false },
      changed: { globalConcurrency: 4, groupConcurrency: 2, rateLimit: { max: 10, perMs: 1000, perGroup: false } },
    });
  });

  it.each([
    ['no limit named', {}, 'LJ_ERR_VALIDATION'],
    ['an unknown field', { concurrency: 2 }, 'LJ_ERR_UNKNOWN_OPTION'],
    ['a concurrency of 0', { globalConcurrency: 0 }, 'LJ_ERR_VALIDATION'],
    ['a rate without its window', { rateLimit: { max: 5 } }, 'LJ_ERR_VALIDATION'],
    ['an unknown rate field', { rateLimit: { max: 5, per: 1000, burst: 2 } }, 'LJ_ERR_UNKNOWN_OPTION'],
    ['not an object', 5, 'LJ_ERR_VALIDATION'],
  ])('refuses %s, writing nothing', async (_what, changes, code) => {
    const q = fx.open();
    await q.ping();
    await expect(q.setLimits('n', changes as never)).rejects.toMatchObject({ code });
    expect(Number(await fx.value('SELECT count(*) FROM name_limits'))).toBe(0);
  });
});
