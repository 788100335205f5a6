/** createVirtualClock: time moves only in advance(), timers fire in due order, and promise work between them settles. */
import { describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

describe('createVirtualClock', () => {
  it('starts at the given time and moves only when advanced', async () => {
    const clock = createVirtualClock(1_000);
    expect(clock.now()).toBe(1_000);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(clock.now()).toBe(1_000);
    await clock.advance(250);
    expect(clock.now()).toBe(1_250);
    expect(createVirtualClock().now()).toBe(0);
  });

  it('fires timers in due order, equal due times in the order armed, each seeing its own due time', async () => {
    const clock = createVirtualClock(0);
    const fired: Array<[string, number]> = [];
    const at = (name: string, ms: number) => clock.setTimeout(() => fired.push([name, clock.now()]), ms);
    at('c', 30);
    at('a', 10);
    at('b1', 20);
    at('b2', 20);
    at('zero', 0);
    await clock.advance(25);
    expect(fired).toEqual([
      ['zero', 0],
      ['a', 10],
      ['b1', 20],
      ['b2', 20],
    ]);
    expect(clock.now()).toBe(25);
    await clock.advance(5); // due exactly at the end of the window: fires
    expect(fired.at(-1)).toEqual(['c', 30]);
  });

  it('treats negative and NaN delays as now, and fires a 0 ms timer on advance(0)', async () => {
    const clock = createVirtualClock(100);
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(clock.now()), -5);
    clock.setTimeout(() => fired.push(clock.now()), Number.NaN);
    clock.setTimeout(() => fired.push(clock.now()), 0);
    expect(fired).toEqual([]); // never synchronously
    await clock.advance(0);
    expect(fired).toEqual([100, 100, 100]);
    expect(clock.now()).toBe(100);
  });

  it('never fires a cleared timer, also one cleared by an earlier timer of the same advance', async () => {
    const clock = createVirtualClock(0);
    const fired: string[] = [];
    const a = clock.setTimeout(() => fired.push('a'), 10);
    clock.clearTimeout(a);
    let c: ReturnType<typeof clock.setTimeout> | undefined;
    clock.setTimeout(() => {
      fired.push('b');
      clock.clearTimeout(c!);
    }, 20);
    c = clock.setTimeout(() => fired.push('c'), 30);
    clock.clearTimeout(a); // twice: harmless
    await clock.advance(100);
    expect(fired).toEqual(['b']);
    expect(clock.pending()).toBe(0);
  });

  it('fires timers armed during an advance within the same advance, at their own due time', async () => {
    const clock = createVirtualClock(0);
    const fired: Array<[string, number]> = [];
    clock.setTimeout(() => {
      fired.push(['first', clock.now()]);
      clock.setTimeout(() => fired.push(['armed at 10 for +5', clock.now()]), 5);
      clock.setTimeout(() => fired.push(['armed at 10 for +50', clock.now()]), 50);
    }, 10);
    clock.setTimeout(() => fired.push(['at 12', clock.now()]), 12);
    await clock.advance(30);
    expect(fired).toEqual([
      ['first', 10],
      ['at 12', 12],
      ['armed at 10 for +5', 15],
    ]);
    expect(clock.pending()).toBe(1);
    await clock.advance(30);
    expect(fired.at(-1)).toEqual(['armed at 10 for +50', 60]);
  });

  it('lets the promise jobs a timer starts run, at that timer\'s time, before the next timer fires', async () => {
    const clock = createVirtualClock(0);
    const log: string[] = [];
    const chain = async (name: string) => {
      // A chain of promise jobs, as code that awaits a store call after a timer produces.
      for (let i = 0; i < 50; i++) await Promise.resolve();
      log.push(`${name} done at ${clock.now()}`);
      // Work it arms at 0 ms runs before any later timer too.
      await new Promise<void>((resolve) => clock.setTimeout(resolve, 0));
      log.push(`${name} after a 0 ms timer at ${clock.now()}`);
    };
    clock.setTimeout(() => void chain('a'), 10);
    clock.setTimeout(() => log.push(`timer at ${clock.now()}`), 11);
    // And promise work already under way when advance() is called settles before the first timer.
    void chain('pre');
    await clock.advance(20);
    expect(log).toEqual(['pre done at 0', 'pre after a 0 ms timer at 0', 'a done at 10', 'a after a 0 ms timer at 10', 'timer at 11']);
  });

  it('counts pending timers: armed, not yet fired nor cleared', async () => {
    const clock = createVirtualClock(0);
    expect(clock.pending()).toBe(0);
    const a = clock.setTimeout(() => {}, 10);
    clock.setTimeout(() => {}, 20);
    clock.setTimeout(() => {}, 30);
    expect(clock.pending()).toBe(3);
    clock.clearTimeout(a);
    expect(clock.pending()).toBe(2);
    await clock.advance(20);
    expect(clock.pending()).toBe(1);
    await clock.advance(10);
    expect(clock.pending()).toBe(0);
  });

  it('never goes back when two advances run at once', async () => {
    const clock = createVirtualClock(1000);
    await Promise.all([clock.advance(30), clock.advance(0), clock.advance(0)]);
    expect(clock.now()).toBeGreaterThanOrEqual(1030);
  });
});
