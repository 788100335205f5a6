import { describe, expect, it } from 'vitest';
import { createPrefetchSize, MAX_ADAPTIVE, MAX_GROUPED_PER_WORKER } from '../../src/engine/claim/prefetch-size.js';

/** Workers take `perMs` jobs a millisecond for `ms`, with a claim of `claimMs` every `every` ms. */
function run(size: ReturnType<typeof createPrefetchSize>, from: number, ms: number, perMs: number, claimMs = 1, every = 5): number {
  let t = from;
  for (; t < from + ms; t += every) {
    for (let i = 0; i < perMs * every; i++) size.took();
    size.claimed(claimMs, t + every);
  }
  return t;
}

describe('the adaptive prefetch size', () => {
  it('is the given prefetch when one is set, whatever the workers do', () => {
    const size = createPrefetchSize(16, 10, 0);
    run(size, 0, 1000, 50);
    expect(size.target()).toBe(10);
    expect(size.max).toBe(10);
  });

  it('starts at four times concurrency and grows to its ceiling while workers take jobs fast', () => {
    const size = createPrefetchSize(16, undefined, 0);
    expect(size.target()).toBe(64);
    run(size, 0, 200, 60); // 60 jobs/ms: no-op handlers, past the ceiling at 20 ms of work
    expect(size.target()).toBe(MAX_ADAPTIVE);
  });

  it('holds about 20 to 30 ms of work between the floor and the ceiling', () => {
    const size = createPrefetchSize(16, undefined, 0);
    run(size, 0, 400, 8); // 8 jobs/ms, claims of 1 ms: a 20 ms horizon
    expect(size.target()).toBeGreaterThanOrEqual(8 * 20 - 1);
    expect(size.target()).toBeLessThanOrEqual(8 * 30 + 1);
  });

  it('covers four slow claims (round trips away from the database), up to 100 ms', () => {
    const size = createPrefetchSize(16, undefined, 0);
    run(size, 0, 400, 4, 6, 10); // claims of 6 ms: 24 ms of work
    expect(size.target()).toBeGreaterThan(4 * 22);
    expect(size.target()).toBeLessThan(4 * 26);
    run(size, 400, 800, 4, 15, 20); // claims of 15 ms: 60 ms of work
    expect(size.target()).toBeGreaterThan(4 * 55);
    expect(size.target()).toBeLessThan(4 * 65);
    run(size, 1200, 800, 4, 50, 50); // claims of 50 ms: capped at 100 ms of work
    expect(size.target()).toBeLessThanOrEqual(4 * 100 + 1);
    expect(size.target()).toBeGreaterThan(4 * 90);
  });

  it('grows fourfold at once when the workers emptied it during a claim that came back full', () => {
    const size = createPrefetchSize(16, undefined, 0);
    // Claims of 20 ms deliver what the buffer asked for; the workers took it all meanwhile.
    size.claimed(20, 20, true);
    expect(size.target()).toBe(256);
    size.claimed(20, 40, true);
    expect(size.target()).toBe(MAX_ADAPTIVE);
    for (let t = 60; t < 200; t += 20) size.claimed(20, t, true);
    expect(size.target()).toBe(MAX_ADAPTIVE);
    // Fed at last: the rate the workers keep up (10 jobs/ms) over four claims' time (80 ms) sets it.
    for (let t = 200; t < 400; t += 20) {
      for (let i = 0; i < 200; i++) size.took();
      size.claimed(20, t);
    }
    expect(size.target()).toBeGreaterThan(10 * 75);
    expect(size.target()).toBeLessThan(10 * 85);
  });

  it('does not grow for long jobs the workers never run dry of', () => {
    const size = createPrefetchSize(16, undefined, 0);
    size.claimed(1, 1, false); // the first claim found idle workers, but the buffer had never held jobs
    run(size, 1, 10_000, 0.016, 1, 100);
    expect(size.target()).toBe(64);
  });

  it('stays at the floor for long jobs, and falls back to it after a quiet spell', () => {
    const slow = createPrefetchSize(16, undefined, 0);
    run(slow, 0, 10_000, 0.016, 1, 100); // 16 workers, 1 s jobs
    expect(slow.target()).toBe(64);

    const size = createPrefetchSize(16, undefined, 0);
    const t = run(size, 0, 200, 60);
    expect(size.target()).toBe(MAX_ADAPTIVE);
    size.took();
    size.claimed(1, t + 60_000); // the next claim, a minute later
    expect(size.target()).toBe(64);
  });
});

describe('the buffer past its horizon', () => {
  it('hands back what the workers will not reach within the horizon once the jobs turn slow, and shrinks', () => {
    const size = createPrefetchSize(2, undefined, 0);
    run(size, 0, 200, 60); // quick jobs: grown to the ceiling, claims of 1 ms (a 20 ms horizon)
    expect(size.target()).toBe(MAX_ADAPTIVE);
    size.claimed(1, 1000); // a claim of long jobs at that size
    expect(size.overflow(600, 1010)).toBe(0); // not a horizon old yet
    expect(size.overflow(600, 1090)).toBe(0); // nor PACE_MIN_MS: a pace over less is noise
    size.took();
    size.took(); // 2 taken in 200 ms: 0.01 jobs/ms, nothing to keep past the floor (8)
    expect(size.overflow(600, 1200)).toBe(600 - 8);
    expect(size.target()).toBe(8);
  });

  it('hands back nothing for a stall of tens of ms after a claim (a group commit, a GC pause) in a drain of quick jobs', () => {
    const size = createPrefetchSize(16, undefined, 0);
    run(size, 0, 200, 30, 5); // a drain: 30 jobs/ms, claims of 5 ms (a 20 ms horizon)
    const at = 200;
    size.claimed(5, at);
    for (let i = 0; i < 200; i++) size.took(); // then the takes stop for a while: 200 in 47 ms reads as 4 jobs/ms
    expect(size.overflow(786, at + 47)).toBe(0);
    // The check after a claim comes past that threshold by a margin (a timer may fire a millisecond early), and then hands back.
    expect(size.overflowCheckMs()).toBeGreaterThan(100);
    expect(size.overflow(786, at + size.overflowCheckMs() - 1)).toBeGreaterThan(0);
  });

  it('hands back nothing while the workers keep their pace, or the buffer is within twice what they reach', () => {
    const size = createPrefetchSize(16, undefined, 0);
    run(size, 0, 200, 8); // 8 jobs/ms, a 20 ms horizon: 160 kept
    const at = 200;
    size.claimed(1, at);
    for (let i = 0; i < 8 * 40; i++) size.took();
    expect(size.overflow(300, at + 40)).toBe(0); // 320 reached in 40 ms: 160 kept, 300 within twice that
    expect(size.overflow(64, at + 10_000)).toBe(0); // the floor stays
    const fixed = createPrefetchSize(16, 500, 0);
    expect(fixed.overflow(500, 10_000)).toBe(0);
  });
});

describe('the adaptive prefetch size with group concurrency', () => {
  it('grows to eight jobs per worker at most: buffered jobs hold their groups', () => {
    const size = createPrefetchSize(16, undefined, 0, true);
    run(size, 0, 200, 40);
    expect(size.target()).toBe(MAX_GROUPED_PER_WORKER * 16);
    expect(size.max).toBe(128);
  });
});
