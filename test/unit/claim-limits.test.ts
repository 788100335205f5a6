/** The claim's limit rules, without a store: buckets, group and name limits, turn order, what is held back. */
import { describe, expect, it } from 'vitest';
import { bucketOf, selectClaims, spend, tokens, type Candidate, type SelectInput } from '../../src/store/claim-limits.js';
import type { NameLimits } from '../../src/store/store.js';

const rule = { max: 3, perMs: 1000, perGroup: false };

let nextId = 1;
const job = (name: string, group: string | null = null, over: Partial<Candidate> = {}): Candidate => ({ id: nextId++, name, priority: 0, run_at: nextId, group_key: group, ...over });

function input(over: Partial<SelectInput<Candidate>>): SelectInput<Candidate> {
  const now = over.now ?? 10_000;
  return { limit: 10, startNow: 10, ahead: false, now, stampAt: now, limits: new Map(), running: [], ungrouped: [], groups: [], overrides: new Map(), buckets: new Map(), ...over };
}

describe('rate-limit buckets', () => {
  it('give each token back `per` after it was spent', () => {
    const spent: Array<[number, number]> = [[0, 2], [500, 1]];
    expect(tokens(spent, rule, 600)).toEqual({ left: 0, nextAt: 1000 });
    expect(tokens(spent, rule, 999)).toEqual({ left: 0, nextAt: 1000 });
    expect(tokens(spent, rule, 1000)).toEqual({ left: 2, nextAt: 1500 });
    expect(tokens(spent, rule, 1500)).toEqual({ left: 3, nextAt: null });
    expect(tokens(undefined, rule, 0)).toEqual({ left: 3, nextAt: null });
  });

  it('keep only the spends not yet given back, one entry per instant', () => {
    expect(spend([[0, 2], [500, 1]], rule, 1200, 2)).toEqual([[500, 1], [1200, 2]]);
    expect(spend([[1200, 2]], rule, 1200, 1)).toEqual([[1200, 3]]);
  });

  it('spend at the latest spend when a claim arrives with an earlier clock, and count every token held at its own clock', () => {
    const spent: Array<[number, number]> = [[100, 3], [205, 2]];
    const r = { ...rule, max: 6, perMs: 100 };
    // A claim reading 190 after one at 205 committed: the tokens spent at 100 are still out until 200.
    expect(tokens(spent, r, 190)).toEqual({ left: 1, nextAt: 200 });
    expect(spend(spent, r, 190, 1)).toEqual([[100, 3], [205, 3]]);
    expect(tokens(spent, r, 200)).toEqual({ left: 4, nextAt: 305 });
  });

  it('stamp a spend at its jobs\' start deadline: the token comes back a window after the latest start', () => {
    const spent: Array<[number, number]> = [[100, 3]];
    expect(spend(spent, rule, 1000, 2, 1040)).toEqual([[100, 3], [1040, 2]]);
    // Held from the claim on, and until 1040 + 1000.
    expect(tokens([[1040, 2]], rule, 1001)).toEqual({ left: 1, nextAt: 2040 });
    expect(tokens([[1040, 2]], rule, 2039)).toEqual({ left: 1, nextAt: 2040 });
    expect(tokens([[1040, 2]], rule, 2040)).toEqual({ left: 3, nextAt: null });
    // A later claim without a hold stamps no earlier than the latest stamp.
    expect(spend([[1040, 2]], rule, 1010, 1)).toEqual([[1040, 3]]);
  });

  it('per group only for grouped jobs of a perGroup name', () => {
    expect(bucketOf('n', 'g', { ...rule, perGroup: true })).toEqual({ kind: 'name-group', key: '["n","g"]' });
    expect(bucketOf('n', null, { ...rule, perGroup: true })).toEqual({ kind: 'name', key: 'n' });
    expect(bucketOf('n', 'g', rule)).toEqual({ kind: 'name', key: 'n' });
    expect(bucketOf('n', 'g', undefined)).toBeUndefined();
  });
});

describe('selectClaims', () => {
  it('takes no more of a group than its limit minus what runs, and holds the rest back until one ends', () => {
    const limits = new Map<string, NameLimits>([['g', { groupConcurrency: 2 }]]);
    const a = [job('g', 'A'), job('g', 'A'), job('g', 'A')];
    const out = selectClaims(input({ limits, running: [{ name: 'g', group_key: 'A', n: 1 }], groups: [{ key: 'A', heads: a }] }));
    expect(out.take).toEqual([a[0]]);
    expect(out.heldBack).toEqual({ until: null });
  });

  it("a group's own setting wins over the definition's", () => {
    const limits = new Map<string, NameLimits>([['g', { groupConcurrency: 1 }]]);
    const a = [job('g', 'A'), job('g', 'A'), job('g', 'A')];
    expect(selectClaims(input({ limits, overrides: new Map([['A', 2]]), groups: [{ key: 'A', heads: a }] })).take).toEqual(a.slice(0, 2));
  });

  it('groups take turns: every first job before any second one, then priority first of all', () => {
    const a = [job('n', 'A'), job('n', 'A')];
    const b = [job('n', 'B'), job('n', 'B')];
    const urgent = job('n', null, { priority: 5 });
    const out = selectClaims(input({ limit: 4, ungrouped: [urgent], groups: [{ key: 'A', heads: a }, { key: 'B', heads: b }] }));
    expect(out.take).toEqual([urgent, a[0], b[0], a[1]]);
    expect(out.lastGroup).toBe('B'); // the furthest group served: the next walk starts after it
    expect(out.heldBack).toBeUndefined();
  });

  it('global concurrency counts every group and the ungrouped jobs of the name', () => {
    const limits = new Map<string, NameLimits>([['c', { globalConcurrency: 3 }]]);
    const jobs = [job('c'), job('c', 'A'), job('c'), job('c', 'B')];
    const out = selectClaims(input({ limits, running: [{ name: 'c', group_key: 'A', n: 1 }], ungrouped: [jobs[0]!, jobs[2]!], groups: [{ key: 'A', heads: [jobs[1]!] }, { key: 'B', heads: [jobs[3]!] }] }));
    expect(out.take).toHaveLength(2);
    expect(out.heldBack).toEqual({ until: null });
  });

  it('spends tokens, stops at the bucket and says when the next comes back', () => {
    const limits = new Map<string, NameLimits>([['r', { rateLimit: rule }]]);
    const jobs = [job('r'), job('r'), job('r')];
    const out = selectClaims(input({ limits, now: 1200, ungrouped: jobs, buckets: new Map([['name\u0000r', [[500, 2]] as Array<[number, number]>]]) }));
    expect(out.take).toEqual([jobs[0]]);
    expect(out.spent).toEqual([{ kind: 'name', key: 'r', spent: [[500, 2], [1200, 1]] }]);
    expect(out.heldBack).toEqual({ until: 1500, tokensOut: true });
  });

  it('takes rate-limited jobs only for the workers idle now, or up to the limit ahead, each stamped at the start deadline', () => {
    const limits = new Map<string, NameLimits>([['r', { rateLimit: { ...rule, max: 100 } }]]);
    const jobs = [job('r'), job('r'), job('free')];
    const out = selectClaims(input({ limits, startNow: 1, ungrouped: jobs }));
    expect(out.take).toEqual([jobs[0], jobs[2]]);
    expect(out.heldBack).toEqual({ until: null });
    const held = selectClaims(input({ limits, startNow: 1, ahead: true, stampAt: 5040, now: 5000, ungrouped: jobs }));
    expect(held.take).toEqual(jobs);
    // The first goes to the idle worker, the second waits in the buffer: both start by the deadline, where their tokens are stamped.
    expect(held.spent).toEqual([{ kind: 'name', key: 'r', spent: [[5040, 2]] }]);
    expect([...held.rated]).toEqual([jobs[0]!.id, jobs[1]!.id]);
    const idleOnly = selectClaims(input({ limits, startNow: 1, stampAt: 5040, now: 5000, ungrouped: jobs }));
    expect(idleOnly.spent).toEqual([{ kind: 'name', key: 'r', spent: [[5040, 1]] }]);
    expect([...idleOnly.rated]).toEqual([jobs[0]!.id]);
    // Idle workers take the claim's first jobs whatever their name: behind an urgent plain job, no rated one starts at once.
    const urgent = job('free', null, { priority: 1 });
    const behind = [urgent, job('r'), job('r')];
    expect(selectClaims(input({ limits, startNow: 1, ungrouped: behind })).take).toEqual([urgent]);
    const buffered = selectClaims(input({ limits, startNow: 1, ahead: true, stampAt: 5040, now: 5000, ungrouped: behind }));
    expect(buffered.take).toEqual(behind);
    expect([...buffered.rated]).toEqual([behind[1]!.id, behind[2]!.id]);
    expect(held.heldBack).toBeUndefined();
  });

  it('a pause in force is a time to come back at when the claim came back short', () => {
    expect(selectClaims(input({ pauseEnds: null })).heldBack).toBeUndefined();
    expect(selectClaims(input({ pauseEnds: 20_000 })).heldBack).toEqual({ until: 20_000 });
    const limits = new Map<string, NameLimits>([['g', { groupConcurrency: 1 }]]);
    const a = [job('g', 'A'), job('g', 'A')];
    expect(selectClaims(input({ limits, pauseEnds: 20_000, groups: [{ key: 'A', heads: a }] })).heldBack).toEqual({ until: 20_000 });
  });
});
