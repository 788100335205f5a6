/**
 * Flows on the SQLite file: a tree of jobs inserted in one transaction, a
 * parent's children read back, and the parent settled inside the
 * transaction that moves one of its children (flow-settle.ts decides).
 */
import type Database from 'better-sqlite3';
import { childDelta, parentAfter, parentMove, type ParentRow } from '../flow-settle.js';
import type { FlowInsertResult, FlowLink, FlowRule, InsertResult, JobRecord, NewFlowNode, NewJob, ParentMove } from '../store.js';
import { toJobRecord, type JobRow } from './rows.js';
import { firstLevel, levelJobs, nextLevel } from '../flow-levels.js';
import { sql } from './sql.js';


export interface SqliteFlows {
  /** Inside the caller's transaction. */
  insertFlow(root: NewFlowNode, waiting: string, at: number): FlowInsertResult;
  /** Inside the transaction that moved the child: settles its parent, and their ancestors in turn; appends the moves. */
  settle(link: FlowLink, child: { id: number; from: string; to: string }, at: number, moves: ParentMove[]): void;
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

  const settle: SqliteFlows['settle'] = (link, child, at, moves) => {
    let current: { link: FlowLink; child: { id: number; name: string; from: string; to: string } } | null = {
      link,
      child: { id: child.id, name: link.name, from: child.from, to: child.to },
    };
    while (current) {
      const rule: FlowRule = current.link.rule;
      const parentId: number = current.link.parentId;
      const delta = childDelta(rule, current.child.from, current.child.to);
      if (!delta) return;
      const row = s.bump.get({ id: parentId, left: delta.left, failed: delta.failed }) as ParentRow | undefined;
      if (!row) return; // the parent is gone (deleted by retention)
      const parent = parentAfter(row);
      const move = parentMove(rule, parent, delta, { id: current.child.id, name: current.child.name, state: current.child.to });
      if (!move) return;
      const error = move.error ? JSON.stringify(move.error) : null;
      if (s.move.run({ id: parent.id, from: rule.from, to: move.to, error, at }).changes !== 1) return;
      if (recordHistory) {
        s.history.run({ id: parent.id, from: rule.from, to: move.to, event: rule.event, candidate: null, at, workerId: null, token: null, error });
      }
      moves.push({ id: parent.id, name: parent.name, from: rule.from, to: move.to, event: rule.event, at, attempts: parent.attempts, error: move.error });
      // A parent that failed has finished in turn: its own parent hears of it.
      current = parent.parentId === null ? null : { link: { rule, parentId: parent.parentId, name: parent.name }, child: { id: parent.id, name: parent.name, from: rule.from, to: move.to } };
    }
  };

  return {
    insertFlow,
    settle,
    children: (parentId, after, limit) => (s.children.all({ id: parentId, after, limit }) as JobRow[]).map(toJobRecord),
    childCounts: (parentId) => {
      const out: Record<string, number> = {};
      for (const r of s.counts.all({ id: parentId }) as Array<{ state: string; n: number }>) out[r.state] = r.n;
      return out;
    },
  };
}
