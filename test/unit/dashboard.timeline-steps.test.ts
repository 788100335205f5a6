/** The dashboard's job timeline puts each durable step under the transition it completed after. */
import { describe, expect, it } from 'vitest';
import { stepsByTransition } from '../../dashboard/src/timeline-steps.js';

const iso = (ms: number) => new Date(ms).toISOString();

describe('stepsByTransition', () => {
  it('places steps under the claim of the attempt they completed in, as the API serves them (ISO dates)', () => {
    const history = [
      { to: 'pending', at: iso(0) },
      { to: 'processing', at: iso(10) },
      { to: 'failed', at: iso(20) },
      { to: 'pending', at: iso(30) },
      { to: 'processing', at: iso(40) },
      { to: 'completed', at: iso(50) },
    ];
    const steps = [
      { name: 'a', at: iso(10) },
      { name: 'b', at: iso(15) },
      // In the same millisecond as the completion that followed it: still under its claim.
      { name: 'c', at: iso(50) },
    ];
    const { before, after } = stepsByTransition(history, steps);
    expect(before).toEqual([]);
    expect(after.map((s) => s.map((x) => x.name))).toEqual([[], ['a', 'b'], [], [], ['c'], []]);
  });

  it('keeps steps older than every transition in front (a history cut short), and takes ms as well', () => {
    const { before, after } = stepsByTransition([{ to: 'pending', at: 100 }], [{ name: 'early', at: 50 }, { name: 'late', at: 150 }]);
    expect(before.map((s) => s.name)).toEqual(['early']);
    expect(after.map((s) => s.map((x) => x.name))).toEqual([['late']]);
  });
});
