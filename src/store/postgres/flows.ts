/**
 * Flows on PostgreSQL: a tree of jobs inserted in one transaction, a
 * parent's children read back, and the parent settled inside the
 * transaction that moves one of its children (flow-settle.ts decides).
 *
 * Two children of one parent finishing at once in two transactions meet on
 * the parent's row: its UPDATE waits for the other's commit and then counts
 * from the committed row, so exactly one of them sees the last child go.
 */
import { movesByRequest, nextUp, parentAfter, parentMove, settlesByParent, type ChildDelta, type ChildSeen, type ParentRow } from '../flow-settle.js';
import type { FlowInsertResult, FlowRule, JobRecord, NewFlowNode, ParentMove, TransitionRequest } from '../store.js';
import { toJobRecord, type JobRow } from '../job-columns.js';
import type { Queryable } from './driver.js';
import { insertJobs, type InsertStatements } from './insert.js';
import { statement } from './sql.js';
import { firstLevel, levelJobs, nextLevel } from '../flow-levels.js';



export interface PostgresFlows {
  insertFlow(client: Queryable, root: NewFlowNode, waiting: string, at: number): Promise<FlowInsertResult>;
  /** Settles the parents of the requests that moved (`moved[i]`), in the caller's transaction; the parents each request moved. */
  settleParents(client: Queryable, reqs: readonly TransitionRequest[], moved: readonly boolean[]): Promise<ParentMove[][]>;
  children(db: Queryable, parentId: number, after: number, limit: number): Promise<JobRecord[]>;
  childCounts(db: Queryable, parentId: number): Promise<Record<string, number>>;
}

export function postgresFlows(schema: string, insertSql: InsertStatements, history: boolean): PostgresFlows {
  const q = (name: string) => statement(name, schema);
  const s = { bump: q('flow-bump'), move: q('flow-move'), history: q('flow-history'), link: q('flow-link'), children: q('flow-children'), counts: q('flow-counts') };

  const insertFlow: PostgresFlows['insertFlow'] = async (client, root, waiting, at) => {
    let { level, out } = firstLevel(root);
    while (level.length > 0) {
      const { next, links } = nextLevel(level, await insertJobs(client, insertSql, levelJobs(level, waiting), at));
      if (links.length > 0) await client.query(s.link, [links.map((l) => l.id), links.map((l) => l.parent), links.map((l) => l.left), links.map((l) => l.policy)]);
      level = next;
    }
    return out;
  };

  /**
   * Settles one parent for the children of one batch at once (their deltas
   * summed: one UPDATE however many of its children the batch finished), then
   * its ancestors in turn when it moved to a finished state.
   */
  const settleParent = async (client: Queryable, rule: FlowRule, parentId: number, delta: ChildDelta, child: ChildSeen, at: number, moves: ParentMove[]) => {
    let current: { parentId: number; delta: ChildDelta; child: ChildSeen } | null = { parentId, delta, child };
    while (current) {
      const [row]: Array<ParentRow | undefined> = (await client.query<ParentRow>(s.bump, [current.parentId, current.delta.left, current.delta.failed])).rows;
      if (!row) return; // the parent is gone (deleted by retention)
      const parent = parentAfter(row);
      const move = parentMove(rule, parent, current.delta, current.child);
      if (!move) return;
      const error = move.error ? JSON.stringify(move.error) : null;
      if ((await client.query(s.move, [parent.id, rule.from, move.to, error, at])).rowCount !== 1) return;
      if (history) await client.query(s.history, [parent.id, rule.from, move.to, rule.event, at, error]);
      moves.push({ id: parent.id, name: parent.name, from: rule.from, to: move.to, event: rule.event, at, attempts: parent.attempts, error: move.error });
      current = nextUp(rule, parent, move.to);
    }
  };

  return {
    insertFlow,
    settleParents: async (client, reqs, moved) => {
      const settled = settlesByParent(reqs, moved);
      for (const p of settled) await settleParent(client, p.rule, p.parentId, p.delta, p.child, p.at, p.moves);
      return movesByRequest(reqs.length, settled);
    },
    children: async (db, parentId, after, limit) => (await db.query<JobRow>(s.children, [parentId, after, limit])).rows.map(toJobRecord),
    childCounts: async (db, parentId) => {
      const out: Record<string, number> = {};
      for (const r of (await db.query<{ state: string; n: number }>(s.counts, [parentId])).rows) out[r.state] = Number(r.n);
      return out;
    },
  };
}
