/**
 * The order both stores insert a flow in: level by level, one insert per
 * level, so each level's rows can name the ids of the level above as their
 * parents (flow-link.sql). Pure: the stores run the inserts and the links.
 */
import type { FlowInsertResult, InsertResult, NewFlowNode, NewJob, OnChildFailure } from './store.js';

export interface FlowLevelItem {
  node: NewFlowNode;
  parent: number | null;
  result: FlowInsertResult;
}

/** What ties an inserted row into its flow: its parent, and for a parent its count of children and policy. */
export interface FlowLinkRow {
  id: number;
  parent: number | null;
  left: number | null;
  policy: OnChildFailure | null;
}

/** The root's level, and the result the levels fill in. */
export function firstLevel(root: NewFlowNode): { level: FlowLevelItem[]; out: FlowInsertResult } {
  const out: FlowInsertResult = { id: 0, state: '', children: [] };
  return { level: [{ node: root, parent: null, result: out }], out };
}

/** The level's rows to insert: a job with children in the waiting state. */
export function levelJobs(level: readonly FlowLevelItem[], waiting: string): NewJob[] {
  return level.map(({ node }) => (node.children.length > 0 ? { ...node.job, state: waiting } : node.job));
}

/** Records the level's ids, and gives the links to write and the next level. */
export function nextLevel(level: readonly FlowLevelItem[], inserted: readonly InsertResult[]): { next: FlowLevelItem[]; links: FlowLinkRow[] } {
  const next: FlowLevelItem[] = [];
  const links: FlowLinkRow[] = [];
  level.forEach(({ node, parent, result }, i) => {
    const { id, state } = inserted[i]!;
    result.id = id;
    result.state = state;
    const left = node.children.length > 0 ? node.children.length : null;
    if (parent !== null || left !== null) links.push({ id, parent, left, policy: left === null ? null : node.onChildFailure });
    for (const child of node.children) {
      const childResult: FlowInsertResult = { id: 0, state: '', children: [] };
      result.children.push(childResult);
      next.push({ node: child, parent: id, result: childResult });
    }
  });
  return { next, links };
}
