/**
 * browse(): one page of the jobs in one state, in the orders and with the
 * cursors of browse-plans.ts and the scan budget of browse-rows.ts, each
 * state paging along one of the indexes the migrations make:
 *
 *   pending      next to run first       jobs_ready (priority DESC, run_at, id),
 *                                         grouped jobs merged in (jobs_grouped)
 *   processing   lease running out first jobs_leased (locked_until, id)
 *   finished     most recently first     jobs_finished (state, updated_at, id)
 *   the rest     name, then due first    jobs_waiting (state, name, run_at, id)
 *
 * A filter reads at most SCAN_BUDGET rows per page; a page may come back
 * short with a cursor to go on from. All of a page's reads share one snapshot.
 */
import { FINISHED_STATES, JobState } from '../../../machines/job.machine.js';
import { ValidationError } from '../../errors.js';
import type { BrowseFilter, BrowsePage } from '../store.js';
import type { Database } from './open.js';
import type { Queryable } from './driver.js';
import { render, statement } from './sql.js';
import { bindNamed, compileWhere } from './where.js';
import { finishedPlan, pendingPlan, processingPlan, waitingPlan, WAITING_STATES } from '../browse-plans.js';
import { decodeCursor, encodeCursor, keyOf, PAYLOAD_PREVIEW, SCAN_BUDGET, toSummary, type BrowsePlan, type Key, type Segment, type SummaryRow } from '../browse-rows.js';

// JSON read through try_jsonb (migration 019): a row edited by hand into text that is not JSON is listed, not a failed read.
const SUMMARY = `id, name, state, version, attempts, priority, run_at, created_at, updated_at, lease_owner, progress_json AS progress, locked_until,
  {{schema}}.try_jsonb(last_error) ->> 'message' AS error, left(payload, ${PAYLOAD_PREVIEW + 1}) AS payload`;
/** A filtered walk also reads the whole payload as `doc`: the search looks at it, not at the summary's cut. */
const SUMMARY_AND_DOC = `${SUMMARY}, payload AS doc`;

function planFor(state: string, name: string | undefined): BrowsePlan {
  if (state === JobState.pending) return pendingRows(false);
  // SQLite sorts a missing lease end first.
  if (state === JobState.processing) return processingPlan('{{schema}}.jobs WHERE state = {{processing}}', 'locked_until NULLS FIRST, id');
  if (FINISHED_STATES.includes(state)) return finishedPlan('{{schema}}.jobs WHERE (state = {{completed}} OR state = {{dead}} OR state = {{cancelled}}) AND state = @state');
  return waitingPlan(`{{schema}}.jobs WHERE state = @state AND ${WAITING_STATES}`, name);
}

/**
 * Pending jobs in claim order, ungrouped ones along jobs_ready; grouped ones
 * (`grouped`), which jobs_ready leaves out, are read apart and merged in
 * (mergeWalks). Their index, jobs_grouped, is ordered by group first: the
 * grouped pending jobs past the cursor are sorted for each page.
 */
const pendingRows = (grouped: boolean): BrowsePlan => pendingPlan(`{{schema}}.jobs WHERE state = {{pending}} AND group_key IS ${grouped ? 'NOT NULL' : 'NULL'}`);

interface Walk {
  rows: SummaryRow[];
  scanned: number;
  stoppedAt?: Key;
}

async function walk(client: Queryable, schema: string, plan: BrowsePlan, segments: Segment[], conditions: string, params: Record<string, unknown>, limit: number, scanBudget: number): Promise<Walk> {
  /** sql/browse-*.sql over one segment of the plan. */
  const read = async <R>(name: string, segment: Segment, extra: Record<string, unknown>): Promise<R[]> => {
    // The plan's range names the schema and states as statements do: filled in here (a part is put in as it is).
    const parts = { columns: render(conditions ? SUMMARY_AND_DOC : SUMMARY, schema), from: render(segment.from, schema), order: segment.order, keys: plan.keys.join(', '), where: conditions };
    const [sql, values] = bindNamed(statement(name, schema, parts), { ...params, ...extra });
    return (await client.query<R>(sql, values)).rows;
  };
  const rows: SummaryRow[] = [];
  let scanned = 0;
  for (const segment of segments) {
    const want = limit - rows.length;
    if (!conditions) {
      const found = await read<SummaryRow>('browse-page', segment, { limit: want });
      rows.push(...found);
      scanned += found.length;
    } else {
      const budget = scanBudget - scanned;
      const found = await read<SummaryRow>('browse-page-where', segment, { budget, limit: want });
      rows.push(...found);
      if (found.length === want) return { rows, scanned: scanned + want };
      const [{ n }] = (await read<{ n: number }>('browse-scanned', segment, { budget })) as [{ n: number }];
      scanned += n;
      if (n === budget) {
        const [edge] = await read<Record<string, unknown>>('browse-edge', segment, { skip: budget - 1 });
        return { rows, scanned, stoppedAt: keyOf(edge!, plan.keys) };
      }
    }
    if (rows.length >= limit) break;
  }
  return { rows, scanned };
}

/** Claim order: priority first (higher first), then due time, then id. */
const byClaimOrder = (x: Key, y: Key): number => Number(y[0]) - Number(x[0]) || Number(x[1]) - Number(y[1]) || Number(x[2]) - Number(y[2]);

/**
 * Two walks in claim order as one page: each is known complete up to its
 * last row when it filled the page, up to where it stopped when it ran out of
 * budget, and to its end otherwise; rows past the nearest of these belong to
 * a later page.
 */
function mergeWalks(walks: Walk[], keys: string[], limit: number): Walk {
  const key = (row: SummaryRow) => keyOf(row as unknown as Record<string, unknown>, keys);
  const bounds = walks.map((w) => (w.rows.length >= limit ? key(w.rows.at(-1)!) : w.stoppedAt)).filter((b): b is Key => b !== undefined);
  const bound = bounds.sort(byClaimOrder)[0];
  const rows = walks
    .flatMap((w) => w.rows)
    .filter((r) => bound === undefined || byClaimOrder(key(r), bound) <= 0)
    .sort((x, y) => byClaimOrder(key(x), key(y)))
    .slice(0, limit);
  const scanned = walks.reduce((n, w) => n + w.scanned, 0);
  return rows.length >= limit || bound === undefined ? { rows, scanned } : { rows, scanned, stoppedAt: bound };
}

/** `scanBudget`: rows a filtered page reads at most (a parameter for tests; the store uses SCAN_BUDGET). */
export async function browseJobs(db: Database, schema: string, filter: BrowseFilter, scanBudget = SCAN_BUDGET): Promise<BrowsePage> {
  const limit = filter.limit ?? 100;
  const plan = planFor(filter.state, filter.name);
  const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor, plan.keys);
  if (filter.cursor !== undefined && !after) throw new ValidationError('cursor: not one this listing gave (it belongs to another state, or was altered)');
  const compiled = compileWhere(filter.where ?? [], render('{{schema}}.try_jsonb(doc)', schema));
  const segments = plan.segments(after !== undefined);
  const nameInIndex = segments[0]!.from.includes('name = @name');
  const conditions = [compiled.sql, filter.name !== undefined && !nameInIndex ? 'name = @name' : ''].filter(Boolean).join(' AND ');
  const params: Record<string, unknown> = { ...compiled.params, state: filter.state };
  if (filter.name !== undefined) params.name = filter.name;
  after?.forEach((value, k) => {
    params[`k${k}`] = value;
  });
  const { rows, scanned, stoppedAt } = await db.tx(async (client) => {
    const found = await walk(client, schema, plan, segments, conditions, params, limit, scanBudget);
    if (filter.state !== JobState.pending) return found;
    // Each run reads at most the budget.
    const grouped = pendingRows(true);
    return mergeWalks([found, await walk(client, schema, grouped, grouped.segments(after !== undefined), conditions, params, limit, scanBudget)], plan.keys, limit);
  }, 'snapshot');
  const last = rows.length >= limit ? keyOf(rows[rows.length - 1] as unknown as Record<string, unknown>, plan.keys) : stoppedAt;
  return { jobs: rows.map(toSummary), next: last ? encodeCursor(last) : null, scanned };
}
