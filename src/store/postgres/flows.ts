/**
 * Flows on PostgreSQL: a tree of jobs inserted in one transaction, a
 * parent's children read back, and the parent settled inside the
 * transaction that moves one of its children (flow-settle.ts decides).
 *
 * Two children of one parent finishing at once in two transactions meet on
 * the parent's row: its UPDATE waits for the other's commit and then counts
 * from the committed row, so exactly one of them sees the last child go.
 */
import { childDelta, parentMove, policyOf, type ParentAfter } from '../flow-settle.js';
import type { FlowInsertResult, FlowLink, FlowRule, JobRecord, NewFlowNode, ParentMove, TransitionRequest } from '../store.js';
import { toJobRecord, type JobRow } from '../sqlite/rows.js';
import type { Queryable } from './driver.js';
import { insertJobs, type InsertStatements } from './insert.js';
import { render } from './sql.js';

interface ParentRow {
  id: number;
  name: string;
  state: string;
  attempts: number;
  children_left: number;
  children_failed: number;
  on_child_failure: string | null;
  parent_id: number | null;
}

export interface PostgresFlows {
  insertFlow(client: Queryable, root: NewFlowNode, waiting: string, at: number): Promise<FlowInsertResult>;
  /** Settles the parents of the requests that moved (`moved[i]`), in the caller's transaction; fills each request's `parentMoves`. */
  settleAll(client: Queryable, reqs: readonly TransitionRequest[], moved: readonly boolean[]): Promise<void>;
  children(db: Queryable, parentId: number, after: number, limit: number): Promise<JobRecord[]>;
  childCounts(db: Queryable, parentId: number): Promise<Record<string, number>>;
}

export function postgresFlows(schema: string, insertSql: InsertStatements, history: boolean): PostgresFlows {
  const q = (text: string) => render(text, schema);
  const s = {
    bump: q(`UPDATE {{schema}}.jobs SET children_left = children_left + $2, children_failed = children_failed + $3
      WHERE id = $1 AND children_left IS NOT NULL
      RETURNING id, name, state, attempts, children_left, children_failed, on_child_failure, parent_id`),
    move: q(`UPDATE {{schema}}.jobs SET state = $3, last_error = coalesce($4, last_error),
        run_at = CASE WHEN $3 = {{pending}} THEN $5 ELSE run_at END, updated_at = $5
      WHERE id = $1 AND state = $2`),
    history: q(`INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, at, error) VALUES ($1, $2, $3, $4, $5, $6)`),
    link: q(`UPDATE {{schema}}.jobs j SET parent_id = u.parent, children_left = u.left_n,
        children_failed = CASE WHEN u.left_n IS NULL THEN NULL ELSE 0 END, on_child_failure = u.policy
      FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::text[]) AS u (id, parent, left_n, policy)
      WHERE j.id = u.id`),
    children: q('SELECT * FROM {{schema}}.jobs WHERE parent_id = $1 AND id > $2 ORDER BY id LIMIT $3'),
    counts: q('SELECT state, count(*)::int AS n FROM {{schema}}.jobs WHERE parent_id = $1 GROUP BY state'),
  };

  const insertFlow: PostgresFlows['insertFlow'] = async (client, root, waiting, at) => {
    const out: FlowInsertResult = { id: 0, state: '', children: [] };
    let level: Array<{ node: NewFlowNode; parent: number | null; result: FlowInsertResult }> = [{ node: root, parent: null, result: out }];
    while (level.length > 0) {
      const jobs = level.map(({ node }) => (node.children.length > 0 ? { ...node.job, state: waiting } : node.job));
      const inserted = await insertJobs(client, insertSql, jobs, at);
      const links: [number[], Array<number | null>, Array<number | null>, Array<string | null>] = [[], [], [], []];
      const next: typeof level = [];
      level.forEach(({ node, parent, result }, i) => {
        const { id, state } = inserted[i]!;
        result.id = id;
        result.state = state;
        const left = node.children.length > 0 ? node.children.length : null;
        if (parent !== null || left !== null) {
          links[0].push(id);
          links[1].push(parent);
          links[2].push(left);
          links[3].push(left === null ? null : node.onChildFailure);
        }
        for (const child of node.children) {
          const childResult: FlowInsertResult = { id: 0, state: '', children: [] };
          result.children.push(childResult);
          next.push({ node: child, parent: id, result: childResult });
        }
      });
      if (links[0].length > 0) await client.query(s.link, links);
      level = next;
    }
    return out;
  };

  const settle = async (client: Queryable, link: FlowLink, child: { id: number; from: string; to: string }, at: number, moves: ParentMove[]) => {
    let current: { rule: FlowRule; parentId: number; child: { id: number; name: string; from: string; to: string } } | null = {
      rule: link.rule,
      parentId: link.parentId,
      child: { ...child, name: link.name },
    };
    while (current) {
      const rule: FlowRule = current.rule;
      const parentId: number = current.parentId;
      const delta = childDelta(rule, current.child.from, current.child.to);
      if (!delta) return;
      const [row]: Array<ParentRow | undefined> = (await client.query<ParentRow>(s.bump, [parentId, delta.left, delta.failed])).rows;
      if (!row) return; // the parent is gone (deleted by retention)
      const parent: ParentAfter = { id: Number(row.id), name: row.name, state: row.state, attempts: row.attempts, left: row.children_left, failed: row.children_failed, onChildFailure: policyOf(row.on_child_failure), parentId: row.parent_id === null ? null : Number(row.parent_id) };
      const move = parentMove(rule, parent, delta, { id: current.child.id, name: current.child.name, state: current.child.to });
      if (!move) return;
      const error = move.error ? JSON.stringify(move.error) : null;
      if ((await client.query(s.move, [parent.id, rule.from, move.to, error, at])).rowCount !== 1) return;
      if (history) await client.query(s.history, [parent.id, rule.from, move.to, rule.event, at, error]);
      moves.push({ id: parent.id, name: parent.name, from: rule.from, to: move.to, event: rule.event, at, attempts: parent.attempts, error: move.error });
      current = parent.parentId === null ? null : { rule, parentId: parent.parentId, child: { id: parent.id, name: parent.name, from: rule.from, to: move.to } };
    }
  };

  return {
    insertFlow,
    settleAll: async (client, reqs, moved) => {
      // Parents in id order: two batches settling the same parents lock them in the same order.
      const settling = reqs.map((t, i) => ({ t, i })).filter(({ t, i }) => moved[i] && t.flow);
      settling.sort((a, b) => a.t.flow!.parentId - b.t.flow!.parentId);
      for (const { t } of settling) {
        t.parentMoves = [];
        await settle(client, t.flow!, { id: t.id, from: t.from, to: t.to }, t.at, t.parentMoves);
      }
    },
    children: async (db, parentId, after, limit) => (await db.query<JobRow>(s.children, [parentId, after, limit])).rows.map(toJobRecord),
    childCounts: async (db, parentId) => {
      const out: Record<string, number> = {};
      for (const r of (await db.query<{ state: string; n: number }>(s.counts, [parentId])).rows) out[r.state] = Number(r.n);
      return out;
    },
  };
}
