/**
 * What a child's move does to its flow parent, decided the same way by both
 * stores inside the transaction that moves the child: the parent's counts
 * change, and the parent leaves its waiting state by the machine's
 * `job.children` edges (FlowRule) when its last child finished, or at once
 * when a child failed and its policy is 'fail'.
 *
 * A child taken back from a finished state (a dead child retried) counts as
 * unfinished again, so a parent never runs while a child it waits for runs.
 *
 * Pure: the stores run the reads and writes.
 */
import type { ErrorInfo } from '../../machines/policy.js';
import type { FlowRule, OnChildFailure, ParentMove, TransitionRequest } from './store.js';
import type { ErrorCode } from '../errors.js';

/** How a child's move changes its parent's counts: children left, children failed. */
export interface ChildDelta {
  left: number;
  failed: number;
}

/** The parent's row after its counts changed. */
export interface ParentAfter {
  id: number;
  name: string;
  state: string;
  attempts: number;
  left: number;
  failed: number;
  onChildFailure: OnChildFailure;
  parentId: number | null;
}

/** A parent's row as both stores' bump statements return it (flow-bump.sql). */
export interface ParentRow {
  id: number;
  name: string;
  state: string;
  attempts: number;
  children_left: number;
  children_failed: number;
  on_child_failure: string | null;
  parent_id: number | null;
}

export function parentAfter(row: ParentRow): ParentAfter {
  return {
    id: Number(row.id),
    name: row.name,
    state: row.state,
    attempts: Number(row.attempts),
    left: Number(row.children_left),
    failed: Number(row.children_failed),
    onChildFailure: policyOf(row.on_child_failure),
    parentId: row.parent_id === null ? null : Number(row.parent_id),
  };
}

/** Null when the move neither finishes the child nor takes it back from finished. */
export function childDelta(rule: FlowRule, from: string, to: string): ChildDelta | null {
  const was = rule.finished.includes(from);
  const is = rule.finished.includes(to);
  const failedBefore = rule.failures.includes(from) ? 1 : 0;
  const failedNow = rule.failures.includes(to) ? 1 : 0;
  const delta = { left: (was ? 1 : 0) - (is ? 1 : 0), failed: failedNow - failedBefore };
  return delta.left === 0 && delta.failed === 0 ? null : delta;
}

/** The error a parent records when a child's failure fails it. */
function childFailedError(child: { id: number; name: string; state: string }): ErrorInfo {
  return { name: 'ChildFailedError', code: 'LJ_ERR_CHILD_FAILED' satisfies ErrorCode, message: `child job ${child.id} (${child.name}) ended ${child.state}` };
}

/** Where the parent goes now, if anywhere: the rule's `done` or `failed` state, with the error for `failed`. */
export function parentMove(
  rule: FlowRule,
  parent: ParentAfter,
  delta: ChildDelta,
  child: { id: number; name: string; state: string },
): { to: string; error: ErrorInfo | null } | null {
  if (parent.state !== rule.from) return null;
  if (delta.failed > 0 && parent.onChildFailure === 'fail') return { to: rule.failed, error: childFailedError(child) };
  if (parent.left > 0) return null;
  // A failure the parent did not move for (it was not waiting then) still fails a 'fail' parent.
  if (parent.failed > 0 && parent.onChildFailure === 'fail') return { to: rule.failed, error: childFailedError(child) };
  return { to: rule.done, error: null };
}

/** A policy as stored (`on_child_failure`). */
function policyOf(text: string | null | undefined): OnChildFailure {
  return text === 'continue' ? 'continue' : 'fail';
}

/** The child a parent's move names (a failure's error says which child failed). */
export interface ChildSeen {
  id: number;
  name: string;
  state: string;
}

/** What a batch of moves does to one parent: its children's deltas summed, the child to name, and where its moves are reported. */
export interface ParentSettle {
  parentId: number;
  rule: FlowRule;
  delta: ChildDelta;
  child: ChildSeen;
  at: number;
  /** The request the parent's moves are reported on: the first of its children's in the batch. */
  index: number;
  moves: ParentMove[];
}

/**
 * The parents a batch of transitions settles, in id order (two batches
 * settling the same parents lock them in the same order): each request that
 * moved (`moved[i]`) a flow child is summed into its parent's delta, so a
 * parent is updated once however many of its children the batch finished.
 * The child named is the first that failed, else the first. A parent's moves
 * are reported on the first of its children's requests (`index`), in the
 * answer `movesByRequest` builds.
 */
export function settlesByParent(reqs: readonly TransitionRequest[], moved: readonly boolean[]): ParentSettle[] {
  const byParent = new Map<number, ParentSettle>();
  reqs.forEach((t, i) => {
    if (!moved[i] || !t.flow) return;
    const delta = childDelta(t.flow.rule, t.from, t.to);
    if (!delta) return;
    const child = { id: t.id, name: t.flow.name, state: t.to };
    const seen = byParent.get(t.flow.parentId);
    if (!seen) {
      byParent.set(t.flow.parentId, { parentId: t.flow.parentId, rule: t.flow.rule, delta: { ...delta }, child, at: t.at, index: i, moves: [] });
      return;
    }
    if (delta.failed > 0 && seen.delta.failed <= 0) seen.child = child;
    seen.delta.left += delta.left;
    seen.delta.failed += delta.failed;
    seen.at = Math.max(seen.at, t.at);
  });
  return [...byParent.values()].filter((p) => p.delta.left !== 0 || p.delta.failed !== 0).sort((a, b) => a.parentId - b.parentId);
}

/** After a parent moved: its own parent's settle, when the move finished it (a parent failed with a child), else null. */
export function nextUp(rule: FlowRule, parent: ParentAfter, to: string): { parentId: number; delta: ChildDelta; child: ChildSeen } | null {
  if (parent.parentId === null) return null;
  const delta = childDelta(rule, rule.from, to);
  return delta ? { parentId: parent.parentId, delta, child: { id: parent.id, name: parent.name, state: to } } : null;
}

/** The parents' moves of settled batches, request by request (empty where a request moved none). */
export function movesByRequest(count: number, settled: readonly ParentSettle[]): ParentMove[][] {
  const out: ParentMove[][] = Array.from({ length: count }, () => []);
  for (const p of settled) out[p.index]!.push(...p.moves);
  return out;
}
