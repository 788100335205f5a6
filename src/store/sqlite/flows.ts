/**
 * Flows on the SQLite file: a tree of jobs inserted in one transaction, a
 * parent's children read back, and the parent settled inside the
 * transaction that moves one of its children (flow-settle.ts decides).
 */
import type Database from 'better-sqlite3';
import { movesByRequest, nextUp, parentAfter, parentMove, settlesByParent, type ChildDelta, type ChildSeen, type ParentRow } from '../flow-settle.js';
import type { FlowInsertResult, FlowRule, TransitionRequest, InsertResult, JobRecord, NewFlowNode, NewJob, ParentMove } from '../store.js';
import { toJobRecord, type JobRow } from '../job-columns.js';
import { firstLevel, levelJobs, nextLevel } from '../flow-levels.js';
import { sql } from './sql.js';


export interface SqliteFlows {
  /** Inside the caller's transaction. */
  insertFlow(root: NewFlowNode, waiting: string, at: number): FlowInsertResult;
  /** Inside the transaction that moved the children: settles the parents of the requests that moved (`moved[i]`); the parents each request moved. */
  settleParents(reqs: readonly TransitionRequest[], moved: readonly boolean[]): ParentMove[][];
  children(parentId: number, after: number, limit: number): JobRecord[];
  childCounts(parentId: number): Record<string, number>;
}

export function createSqliteFlows(db: Database.Database, recordHistory: boolean, insert: (jobs: readonly NewJob[], at: number) => InsertResult[]): SqliteFlows {
  const s = {
    bump: db.prepare(sql('flow-bump')),
    move: db.prepare(sql('flow-move')),
    link: db.prepare(sql('flow-link')),
    history: db.prepare(sql('insert-history')),
    children: db.prepare(sql('flow-children')),
    counts: db.prepare(sql('flow-counts')),
  };

  const insertFlow = (root: NewFlowNode, waiting: string, at: number): FlowInsertResult => {
    let { level, out } = firstLevel(root);
    while (level.length > 0) {
      const { next, links } = nextLevel(level, insert(levelJobs(level, waiting), at));
      for (const link of links) s.link.run(link);
      level = next;
    }
    return out;
  };

  /** One parent, for the children of one batch at once; then its ancestors in turn when it moved to a finished state. */
  const settleParent = (rule: FlowRule, parentId: number, delta: ChildDelta, child: ChildSeen, at: number, moves: ParentMove[]) => {
    let current: { parentId: number; delta: ChildDelta; child: ChildSeen } | null = { parentId, delta, child };
    while (current) {
      const row = s.bump.get({ id: current.parentId, left: current.delta.left, failed: current.delta.failed }) as ParentRow | undefined;
      if (!row) return; // the parent is gone (deleted by retention)
      const parent = parentAfter(row);
      const move = parentMove(rule, parent, current.delta, current.child);
      if (!move) return;
      const error = move.error ? JSON.stringify(move.error) : null;
      if (s.move.run({ id: parent.id, from: rule.from, to: move.to, error, at }).changes !== 1) return;
      if (recordHistory) {
        s.history.run({ id: parent.id, from: rule.from, to: move.to, event: rule.event, candidate: null, at, workerId: null, token: null, error });
      }
      moves.push({ id: parent.id, name: parent.name, from: rule.from, to: move.to, event: rule.event, at, attempts: parent.attempts, error: move.error });
      current = nextUp(rule, parent, move.to);
    }
  };

  return {
    insertFlow,
    settleParents: (reqs, moved) => {
      const settled = settlesByParent(reqs, moved);
      for (const p of settled) settleParent(p.rule, p.parentId, p.delta, p.child, p.at, p.moves);
      return movesByRequest(reqs.length, settled);
    },
    children: (parentId, after, limit) => (s.children.all({ id: parentId, after, limit }) as JobRow[]).map(toJobRecord),
    childCounts: (parentId) => {
      const out: Record<string, number> = {};
      for (const r of s.counts.all({ id: parentId }) as Array<{ state: string; n: number }>) out[r.state] = r.n;
      return out;
    },
  };
}
