/**
 * browse(): one page of the jobs in one state, for the dashboard. Each state
 * pages along an index the engine keeps anyway, in the order people want to
 * see it, with a keyset cursor — so the 100th page of a million jobs costs
 * what the first does, and no index is added to the write path:
 *
 *   pending      next to run first       jobs_ready (priority DESC, run_at, id)
 *   processing   lease running out first jobs_leased (locked_until, id)
 *   finished     most recently first     jobs_finished (state, updated_at, id)
 *   the rest     name, then due first    jobs_waiting (state, name, run_at, id)
 *
 * A filter (name, payload search) is applied while walking: at most
 * SCAN_BUDGET rows are read per page, and a page may come back short with a
 * cursor to go on from, so a rare match never turns into a full-table scan.
 */
import type Database from 'better-sqlite3';
import { FINISHED_STATES, JobState } from '../../../machines/job.machine.js';
import type { BrowseFilter, BrowsePage } from '../store.js';
import type { WhereClause } from '../where.js';
import { ValidationError } from '../../errors.js';
import { withStates } from './sql.js';
import { finishedPlan, PENDING_ORDER, pendingPlan, processingPlan, waitingPlan, WAITING_STATES } from '../browse-plans.js';
import { decodeCursor, encodeCursor, keyOf, PAYLOAD_PREVIEW, SCAN_BUDGET, toSummary, type BrowsePlan, type Key, type Segment, type SummaryRow } from '../browse-rows.js';

const SUMMARY = `id, name, state, version, attempts, priority, run_at, created_at, updated_at, lease_owner, progress_json AS progress, locked_until,
  CASE WHEN json_valid(last_error) THEN json_extract(last_error, '$.message') END AS error, substr(payload, 1, ${PAYLOAD_PREVIEW + 1}) AS payload`;
/** The whole payload, beside the summary's preview, for a filtered walk's search. */
const SEARCHED = 'searched_payload';

const WAITING = withStates(WAITING_STATES, 'browse-jobs');

/** Whether the retention index exists (retention-index.sql): a read-only listing may find it missing. */
const finishedIndexed = new WeakMap<Database.Database, Database.Statement>();
function hasFinishedIndex(db: Database.Database): boolean {
  let probe = finishedIndexed.get(db);
  if (!probe) {
    probe = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'jobs_finished'").pluck();
    finishedIndexed.set(db, probe);
  }
  return probe.get() !== undefined;
}

function planFor(state: string, name: string | undefined, finishedIndex = true): BrowsePlan {
  if (state === JobState.pending) return pendingPlan(withStates(`jobs INDEXED BY jobs_ready WHERE state = {{pending}} AND indexed = 1 AND group_key IS NULL`, 'browse-jobs'));
  if (state === JobState.processing) return processingPlan(withStates(`jobs INDEXED BY jobs_leased WHERE state = {{processing}}`, 'browse-jobs'));
  if (FINISHED_STATES.includes(state)) {
    // A literal, not a parameter: SQLite uses a partial index only when it can see the state matches it.
    return finishedPlan(finishedIndex ? `jobs INDEXED BY jobs_finished WHERE state = '${state}'` : `jobs WHERE state = '${state}'`);
  }
  return waitingPlan(`jobs INDEXED BY jobs_waiting WHERE state = @state AND ${WAITING}`, name);
}

/** `$."a"."b"`: every key quoted, so no key can be read as path syntax. */
function jsonPath(path: readonly string[]): string {
  return `$${path.map((key) => `.${JSON.stringify(key)}`).join('')}`;
}

/**
 * The search as SQL over the whole payload (`column`: the listing reads only
 * a preview of it as `payload`), with its parameters (named @w0 …). A payload
 * SQLite's JSON functions cannot read (nested deeper than they go) matches
 * nothing, instead of failing the whole search.
 */
export function compileWhere(clauses: readonly WhereClause[], column = SEARCHED): { sql: string; params: Record<string, unknown> } {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  if (clauses.length > 0) parts.push(`json_valid(${column})`);
  clauses.forEach((clause, i) => {
    const path = `@p${i}`;
    const value = `@w${i}`;
    params[`p${i}`] = jsonPath(clause.path);
    const field = `json_extract(${column}, ${path})`;
    if (clause.value === null) {
      parts.push(`${field} ${clause.op === '=' ? 'IS NULL' : 'IS NOT NULL'}`);
    } else if (typeof clause.value === 'boolean') {
      // json_extract turns true into 1: compare the JSON type instead, so `= true` does not match the number 1.
      params[`w${i}`] = clause.value ? 'true' : 'false';
      parts.push(`json_type(${column}, ${path}) ${clause.op === '=' ? 'IS' : 'IS NOT'} ${value}`);
    } else if (clause.op === '~') {
      params[`w${i}`] = String(clause.value).toLowerCase();
      // SQLite's lower() folds ASCII only: lj_lower (sqlite-store.ts) is JavaScript's, as the value's.
      parts.push(`instr(lj_lower(${field}), ${value}) > 0`);
    } else {
      params[`w${i}`] = clause.value;
      // A missing field differs from every value.
      parts.push(clause.op === '!=' ? `${field} IS NOT ${value}` : `${field} ${clause.op} ${value}`);
    }
  });
  return { sql: parts.join(' AND '), params };
}

/**
 * Pending jobs outside jobs_ready, merged in, in the same order: those
 * committed on their own since the last claim (see migration 003), found
 * above `indexed_upto` (few, normally: every claim indexes them), and grouped
 * ones (migration 008), read along jobs_grouped and sorted: a page of them
 * costs a sort of the grouped backlog.
 */
function outsideReadyIndex(db: Database.Database, plan: BrowsePlan, conditions: string, params: Record<string, unknown>, after: boolean, limit: number): SummaryRow[] {
  const extra = [conditions, after ? plan.past : ''].filter(Boolean).map((c) => `AND ${c}`).join(' ');
  const text = withStates(
    `SELECT ${SUMMARY} FROM (
       SELECT *, payload AS ${SEARCHED} FROM jobs WHERE id > (SELECT value FROM queue_meta WHERE key = 'indexed_upto') AND indexed = 0 AND state = {{pending}} AND group_key IS NULL
       UNION ALL
       SELECT *, payload AS ${SEARCHED} FROM jobs WHERE state = {{pending}} AND group_key IS NOT NULL
     ) WHERE 1 ${extra} ORDER BY ${PENDING_ORDER} LIMIT @limit`,
    'browse-jobs',
  );
  return db.prepare(text).all({ ...params, limit }) as SummaryRow[];
}

/** Claim order: priority first (higher first), then due time, then id. */
function byClaimOrder(x: SummaryRow, y: SummaryRow): number {
  return y.priority - x.priority || x.run_at - y.run_at || x.id - y.id;
}

interface Walk {
  rows: SummaryRow[];
  scanned: number;
  /** Where a short page stopped reading, when it ran out of budget rather than rows. */
  stoppedAt?: Key;
}

/** Reads the segments in turn: up to `limit` matches, reading at most SCAN_BUDGET rows when filtered. */
function walk(db: Database.Database, plan: BrowsePlan, segments: Segment[], conditions: string, params: Record<string, unknown>, limit: number, scanBudget: number): Walk {
  const rows: SummaryRow[] = [];
  let scanned = 0;
  for (const segment of segments) {
    const want = limit - rows.length;
    const range = `SELECT ${SUMMARY} FROM ${segment.from} ORDER BY ${segment.order}`;
    if (!conditions) {
      const found = db.prepare(`${range} LIMIT @limit`).all({ ...params, limit: want }) as SummaryRow[];
      rows.push(...found);
      scanned += found.length;
    } else {
      const budget = scanBudget - scanned;
      const searched = `SELECT ${SUMMARY}, payload AS ${SEARCHED} FROM ${segment.from} ORDER BY ${segment.order}`;
      const found = db.prepare(`SELECT * FROM (${searched} LIMIT @budget) WHERE ${conditions} LIMIT @limit`).all({ ...params, budget, limit: want }) as SummaryRow[];
      rows.push(...found);
      if (found.length === want) return { rows, scanned: scanned + want };
      // Short: the segment ran out of rows, or the walk ran out of budget (then say where it stopped).
      const keys = `SELECT ${plan.keys.join(', ')} FROM ${segment.from} ORDER BY ${segment.order}`;
      const n = (db.prepare(`SELECT count(*) AS n FROM (${keys} LIMIT @budget)`).get({ ...params, budget }) as { n: number }).n;
      scanned += n;
      if (n === budget) {
        const edge = db.prepare(`${keys} LIMIT 1 OFFSET @skip`).get({ ...params, skip: budget - 1 }) as Record<string, unknown>;
        return { rows, scanned, stoppedAt: keyOf(edge, plan.keys) };
      }
    }
    if (rows.length >= limit) break;
  }
  return { rows, scanned };
}

/** Connections lj_lower is defined on. */
const withFolding = new WeakSet<Database.Database>();

/** The payload search's case folding (`~`), once per connection: SQLite's lower() leaves non-ASCII capitals as they are. */
function defineFolding(db: Database.Database): void {
  if (withFolding.has(db)) return;
  db.function('lj_lower', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toLowerCase() : text));
  withFolding.add(db);
}

/** `scanBudget`: rows a filtered page reads at most (a parameter for tests; the store uses SCAN_BUDGET). */
export function browseJobs(db: Database.Database, filter: BrowseFilter, scanBudget = SCAN_BUDGET): BrowsePage {
  defineFolding(db);
  const limit = filter.limit ?? 100;
  const plan = planFor(filter.state, filter.name, !FINISHED_STATES.includes(filter.state) || hasFinishedIndex(db));
  const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor, plan.keys);
  if (filter.cursor !== undefined && !after) throw new ValidationError('cursor: not one this listing gave (it belongs to another state, or was altered)');
  const compiled = compileWhere(filter.where ?? []);
  const segments = plan.segments(after !== undefined);
  const nameInIndex = segments[0]!.from.includes('name = @name');
  const conditions = [compiled.sql, filter.name !== undefined && !nameInIndex ? 'name = @name' : ''].filter(Boolean).join(' AND ');
  const params: Record<string, unknown> = { ...compiled.params, state: filter.state };
  if (filter.name !== undefined) params.name = filter.name;
  after?.forEach((value, k) => {
    params[`k${k}`] = value;
  });

  // One read transaction: the indexed rows and the unindexed ones come from the same snapshot.
  const read = db.transaction((): Walk => {
    const found = walk(db, plan, segments, conditions, params, limit, scanBudget);
    if (filter.state !== JobState.pending) return found;
    const extra = outsideReadyIndex(db, plan, conditions, params, after !== undefined, limit);
    if (extra.length === 0) return found;
    // A row past where a short walk stopped belongs to a later page.
    const stop = found.stoppedAt;
    const keep = stop ? extra.filter((r) => byClaimOrder(r, { priority: stop[0], run_at: stop[1], id: stop[2] } as SummaryRow) <= 0) : extra;
    return { ...found, rows: [...found.rows, ...keep].sort(byClaimOrder).slice(0, limit) };
  });
  const { rows, scanned, stoppedAt } = read.deferred();
  const last = rows.length >= limit ? keyOf(rows[rows.length - 1] as unknown as Record<string, unknown>, plan.keys) : stoppedAt;
  return { jobs: rows.map(toSummary), next: last ? encodeCursor(last) : null, scanned };
}
