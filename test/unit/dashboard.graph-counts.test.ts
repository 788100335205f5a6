/** The page's counts per state of one chart: states named like Object.prototype members count as any other. */
import { describe, expect, it } from 'vitest';
import { graphCounts } from '../../dashboard/src/graph-counts.js';

const graph = (id: string, names: string[] | null) => ({ id, names });

describe('graphCounts', () => {
  it('sums each state over the chart’s names, states named constructor or __proto__ included', () => {
    const base = graph('job', null);
    const own = graph('import', ['import']);
    const names = { pending: { a: 2, import: 1 }, constructor: { import: 3 }, ['__proto__']: { import: 4 } };
    const counts = graphCounts([base, own], own, JSON.parse(JSON.stringify(names)));
    expect(counts.pending).toBe(1);
    expect(counts.constructor).toBe(3);
    expect(Object.entries(counts)).toContainEqual(['__proto__', 4]);
    expect(graphCounts([base, own], base, names).pending).toBe(2);
  });
});
