/** The one rule of which job names an answer lists by name (stats, metrics, the dashboard, paused names). */
import { describe, expect, it } from 'vitest';
import { listedNames } from '../../src/lib/name-bound.js';

describe('listedNames', () => {
  it('lists every name while there are no more than the bound', () => {
    expect(listedNames(new Map([['a', 1], ['b', 2]]), undefined, 2)).toBeUndefined();
  });

  it("keeps the queue's own names, then the most jobs, ties by name, up to the bound", () => {
    const jobs = new Map([['x', 5], ['own', 0], ['a', 3], ['b', 3], ['c', 9]]);
    expect([...listedNames(jobs, new Set(['own']), 3)!].sort()).toEqual(['c', 'own', 'x']);
    expect([...listedNames(jobs, new Set(['own']), 4)!].sort()).toEqual(['a', 'c', 'own', 'x']);
  });

  it("keeps every one of the queue's own names even when they alone pass the bound", () => {
    const jobs = new Map([['o1', 0], ['o2', 0], ['o3', 0], ['z', 100]]);
    expect([...listedNames(jobs, new Set(['o1', 'o2', 'o3']), 2)!].sort()).toEqual(['o1', 'o2', 'o3']);
  });
});
