/**
 * What a child's move does to its flow parent (flow-settle.ts), the rules
 * both stores apply inside the transaction that moves the child: the deltas,
 * the parent's move under each policy, and a batch summed per parent.
 */
import { describe, expect, it } from 'vitest';
import { compileMachine } from '../../machines/compile.js';
import { createJobMachine, type JobMachineContext } from '../../machines/job.machine.js';
import { flowRuleOf } from '../../src/engine/core/machine-registry.js';
import { childDelta, movesByRequest, parentMove, settlesByParent, type ParentAfter } from '../../src/store/flow-settle.js';
import type { TransitionRequest } from '../../src/store/store.js';

const rule = flowRuleOf(compileMachine<JobMachineContext>(createJobMachine()));
const parent = (over: Partial<ParentAfter>): ParentAfter => ({ id: 1, name: 'p', state: 'waiting-children', attempts: 0, left: 1, failed: 0, onChildFailure: 'fail', parentId: null, ...over });
const child = { id: 7, name: 'c', state: 'dead' };

describe('the flow rule read off the machine', () => {
  it('goes to pending when the children are done, to dead when one failed; finished is completed, dead, cancelled', () => {
    expect(rule).toMatchObject({ from: 'waiting-children', event: 'job.children', done: 'pending', failed: 'dead' });
    expect([...rule.finished].sort()).toEqual(['cancelled', 'completed', 'dead']);
    expect([...rule.failures].sort()).toEqual(['cancelled', 'dead']);
  });
});

describe('childDelta', () => {
  it.each([
    ['processing', 'completed', { left: -1, failed: 0 }],
    ['processing', 'dead', { left: -1, failed: 1 }],
    ['pending', 'cancelled', { left: -1, failed: 1 }],
    ['dead', 'pending', { left: 1, failed: -1 }],
    ['processing', 'failed', null],
    ['pending', 'processing', null],
  ])('%s → %s', (from, to, delta) => {
    expect(childDelta(rule, from, to)).toEqual(delta);
  });
});

describe('parentMove', () => {
  it("'fail': a failed child moves the parent to dead at once, naming the child", () => {
    const move = parentMove(rule, parent({ left: 2, failed: 1 }), { left: -1, failed: 1 }, child);
    expect(move).toEqual({ to: 'dead', error: { name: 'ChildFailedError', code: 'LJ_ERR_CHILD_FAILED', message: 'child job 7 (c) ended dead' } });
  });

  it("'continue': a failed child moves nothing until the last one; then the parent runs", () => {
    expect(parentMove(rule, parent({ left: 2, failed: 1, onChildFailure: 'continue' }), { left: -1, failed: 1 }, child)).toBeNull();
    expect(parentMove(rule, parent({ left: 0, failed: 1, onChildFailure: 'continue' }), { left: -1, failed: 0 }, child)).toEqual({ to: 'pending', error: null });
  });

  it('moves a parent only from its waiting state, and only once nothing is left', () => {
    expect(parentMove(rule, parent({ left: 1 }), { left: -1, failed: 0 }, child)).toBeNull();
    expect(parentMove(rule, parent({ left: 0, state: 'cancelled' }), { left: -1, failed: 0 }, child)).toBeNull();
    expect(parentMove(rule, parent({ left: 0 }), { left: -1, failed: 0 }, child)).toEqual({ to: 'pending', error: null });
  });
});

describe('settlesByParent', () => {
  const req = (id: number, parentId: number, to: string, from = 'processing'): TransitionRequest => ({
    id, version: 1, from, token: 't', to, event: 'e', at: 100 + id, attempts: 1, lastError: null, ctx: null, flow: { rule, parentId, name: `c${id}` },
  });

  it('sums a batch per parent, in parent id order, names the first failed child, and skips what did not move', () => {
    const reqs = [req(10, 5, 'completed'), req(11, 2, 'completed'), req(12, 5, 'dead'), req(13, 5, 'dead'), req(14, 2, 'completed'), req(15, 9, 'completed')];
    const settles = settlesByParent(reqs, [true, true, true, true, true, false]);
    expect(settles.map((p) => [p.parentId, p.delta, p.child.id, p.at])).toEqual([
      [2, { left: -2, failed: 0 }, 11, 114],
      [5, { left: -3, failed: 2 }, 12, 113],
    ]);
    // Moves are reported on each parent's first request, the requests left as they were.
    expect(settles.map((p) => p.index)).toEqual([1, 0]);
    settles[0]!.moves.push({ id: 2, name: 'p2', from: 'waiting', to: 'pending', event: 'e', at: 114, attempts: 0, error: null });
    expect(movesByRequest(reqs.length, settles).map((m) => m.length)).toEqual([0, 1, 0, 0, 0, 0]);
    expect(reqs.every((t) => !('parentMoves' in t))).toBe(true);
  });

  it('drops a parent whose children cancel out (one died, one taken back from dead)', () => {
    expect(settlesByParent([req(1, 3, 'dead'), req(2, 3, 'pending', 'dead')], [true, true])).toEqual([]);
    expect(settlesByParent([req(1, 3, 'completed'), req(2, 3, 'pending', 'dead')], [true, true]).map((p) => p.delta)).toEqual([{ left: 0, failed: -1 }]);
  });
});
