/** What the page's charts draw: from where the data begins, and the legend's values off the chart. */
import { describe, expect, it } from 'vitest';
import { firstDrawn, newestValues } from '../../dashboard/src/chart-data.js';

const xs = (n: number, step: number, end: number) => Array.from({ length: n }, (_, i) => (end - (n - i) * step) / 1000);

describe('firstDrawn', () => {
  const end = 1_800_000_000_000;
  const x = xs(360, 10_000, end); // an hour of 10 s buckets

  it('starts at the bucket before `since`, not an hour of zeros earlier', () => {
    const since = end - 10 * 60_000; // the queue is ten minutes old
    const from = firstDrawn(x, 10_000, since);
    expect(x.length - from).toBe(61); // ten minutes of buckets and the one before
    expect(x[from]! * 1000).toBeLessThanOrEqual(since);
    expect(x[from]! * 1000).toBeGreaterThan(since - 20_000);
  });

  it('draws the whole hour when the data reaches further back', () => {
    expect(firstDrawn(x, 10_000, end - 2 * 3_600_000)).toBe(0);
  });

  it('keeps two points when the data begins now', () => {
    expect(firstDrawn(x, 10_000, end)).toBe(358);
    expect(firstDrawn(x, 10_000, end + 60_000)).toBe(358);
  });
});

describe('newestValues', () => {
  it('is the last value of each line, skipping the gaps at its end', () => {
    expect(newestValues([[1, 2, 3], [5, 6, 7], [4, null, null], [null, null, null]])).toEqual([7, 4, null]);
  });
});
