/**
 * transition(): compare-and-set moves, all in the caller's transaction. A
 * request changes its job only while the job is still at the `version` the
 * request was decided on (in `from` under `token`), so a worker that lost
 * its lease cannot settle and a decision made on an old read never lands. A move into
 * processing keeps the lease (a custom edge); any other clears it. A purge
 * (retention 0) deletes the job, its steps and log lines, under the same condition,
 * keeps its outcome (job_outcomes) and its history, and counts the deletion
 * (queue_meta `deleted`); a job whose throttle window is still open is moved
 * instead (the window lives in its row).
 *
 * Two forms with one outcome. A batch whose jobs are all distinct runs as one
 * statement over the requests unnested from arrays; a batch that names a job
 * twice runs request by request, in order, so that each sees what the one
 * before it did (as the SQLite store's does).
 */
import { FINISHED_STATES, JobState } from '../../../machines/job.machine.js';
import type { TransitionRequest } from '../store.js';
import type { Queryable } from './driver.js';
import { startsFreshRun, transitionSet, type TransitionValue } from '../transition-set.js';
import { PLANNED_PER_CALL } from './prepared.js';
import { statement } from './sql.js';

export interface TransitionStatements {
  move: string;
  /** update-fields.sql of the SQLite store: a job.update's new payload and priority, after its move. */
  updateFields: string;
  purge: string;
  history: string;
  keepOutcome: string;
  purgeSteps: string;
  purgeLogs: string;
  countDeleted: string;
  /** The batch statement for a batch whose columns marked true hold one value for every request (bound once, not as an array). */
  batch(constant: readonly boolean[]): string;
  /**
   * The batch statement for one request, every column bound as a value: a
   * prepared statement, planned once per connection. It finds its job by
   * `j.id = $1`, by primary key in any plan, generic or not, whatever the
   * table held when the plan was made, so it needs no plan per call (the
   * batch's parse and plan took ~0.9 ms of the server's time per call, 3 to
   * 4 times what running it does).
   */
  one: string;
}

/** The arrays a batch binds, in order: the request's fields, one array each. */
const BATCH_COLUMNS = [
  ['id', 'bigint'], ['from_state', 'text'], ['token', 'text'], ['to_state', 'text'], ['event', 'text'], ['candidate', 'int'],
  ['at', 'bigint'], ['attempts', 'int'], ['last_error', 'text'], ['ctx', 'text'], ['run_at', 'bigint'], ['result', 'text'],
  ['worker_id', 'text'], ['error', 'text'], ['purge_at', 'bigint'], ['unique_need', 'int'], ['version', 'int'], ['expired_by', 'bigint'],
  ['keeps_hold', 'boolean'],
] as const;

/** sql/transition-batch.sql binds the wake-up's values from $20 on: one position past the columns. */
if (BATCH_COLUMNS.length !== 19) throw new TypeError('transition-batch.sql numbers its wake-up parameters from $20: keep them past the columns');

/** How the single move binds the spec's values (sql/transition-move.sql: $4 …), and how the batch does (its requests' columns). */
const ONE: Record<TransitionValue, string> = { to: '$4', attempts: '$5::int', lastError: '$6', ctx: '$7', runAt: '$8::bigint', result: '$9', at: '$10', uniqueNeed: '$11::int', keepsHold: '$14::boolean' };
const BATCH: Record<TransitionValue, string> = { to: 'r.to_state', attempts: 'r.attempts', lastError: 'r.last_error', ctx: 'r.ctx', runAt: 'r.run_at', result: 'r.result', at: 'r.at', uniqueNeed: 'r.unique_need', keepsHold: 'r.keeps_hold' };

/** transition-request.sql's values: each column of a request bound as a value, $1 … $19. */
const oneRequest = BATCH_COLUMNS.map(([name, type], i) => `$${i + 1}::${type} AS ${name}`).join(', ');

export function transitionStatements(schema: string, history: boolean): TransitionStatements {
  const q = (name: string, parts?: Record<string, string>) => statement(name, schema, parts);
  // A column whose value is the same for every request (a batch of completions: the states, the event, the
  // nulls) is bound once as a scalar at its own position, so the wake-up's parameters keep theirs. Decoding
  // and unnesting the 18 arrays of a batch of 384 took ~2.3 ms a round trip against ~1 ms for the 6 that vary.
  const requests = (constant: readonly boolean[]) => {
    const varying = BATCH_COLUMNS.map((c, i) => [c, i] as const).filter(([, i]) => !constant[i]);
    const fixed = BATCH_COLUMNS.map(([name, type], i) => (constant[i] ? `, $${i + 1}::${type} AS ${name}` : '')).join('');
    return statement('transition-requests', schema, { fixed, arrays: varying.map(([[, type], i]) => `$${i + 1}::${type}[]`).join(', '), columns: varying.map(([[name]]) => name).join(', ') });
  };
  const batchSet = transitionSet((name) => BATCH[name]);

  return {
    move: q('transition-move', { set: transitionSet((name) => ONE[name]) }),
    updateFields: q('update-fields'),
    purge: q('transition-purge'),
    history: q('insert-history'),
    keepOutcome: q('keep-outcome'),
    purgeSteps: q('purge-steps'),
    purgeLogs: q('purge-logs'),
    countDeleted: q('count-deleted'),
    batch: cached((constant) => q('transition-batch', { requests: requests(constant), jobIds: 'j.id = ANY (ARRAY(SELECT id FROM r))', set: batchSet, history: history ? 'true' : 'false' })),
    one: q('transition-batch', { requests: q('transition-request', { values: oneRequest }), jobIds: 'j.id = $1::bigint', set: batchSet, history: history ? 'true' : 'false' }).replace(PLANNED_PER_CALL, '/* one request */'),
  };
}

/** `make` once per shape of constant columns. */
function cached(make: (constant: readonly boolean[]) => string): (constant: readonly boolean[]) => string {
  const texts = new Map<string, string>();
  return (constant) => {
    const key = constant.map((c) => (c ? '1' : '0')).join('');
    const known = texts.get(key);
    if (known !== undefined) return known;
    const text = make(constant);
    texts.set(key, text);
    return text;
  };
}

const json = (value: unknown): string | null => (value ? JSON.stringify(value) : null);
const historyValues = (t: TransitionRequest) => [t.id, t.from, t.to, t.event, t.candidate ?? null, t.at, t.workerId ?? null, t.token, json(t.error)];

/** Request by request, in order. */
export async function transitionEach(client: Queryable, s: TransitionStatements, reqs: readonly TransitionRequest[], history: boolean): Promise<boolean[]> {
  const out: boolean[] = [];
  const purged: number[] = [];
  for (const t of reqs) {
    const cas = [t.version, t.expiredBy ?? null];
    if (t.purge) {
      const [row] = (await client.query<{ name: string; result: string | null; created_at: number; born: string }>(s.purge, [t.id, t.from, t.token, ...cas, t.throttleAt ?? t.at])).rows;
      if (row) {
        purged.push(t.id);
        await client.query(s.keepOutcome, [t.id, row.name, t.to, row.born, t.result ?? row.result, json(t.lastError), row.created_at, t.at]);
        if (history) await client.query(s.history, historyValues(t));
        out.push(true);
        continue;
      }
      // Not deleted: the compare-and-set misses here too, or the job's throttle window is still open and it is moved instead.
    }
    const values = [t.id, t.from, t.token, t.to, t.attempts, json(t.lastError), json(t.ctx), t.runAt ?? null, t.result ?? null, t.at, t.uniqueNeed ?? 0, ...cas, t.keepsHold === true];
    const changed = (await client.query(s.move, values)).rowCount === 1;
    if (changed && t.set) await client.query(s.updateFields, [t.id, t.set.payload ?? null, t.set.priority ?? null]);
    if (changed && startsFreshRun(t.event)) await client.query(s.purgeSteps, [[t.id]]);
    if (changed && history) await client.query(s.history, historyValues(t));
    out.push(changed);
  }
  if (purged.length > 0) {
    await client.query(s.purgeSteps, [purged]);
    await client.query(s.purgeLogs, [purged]);
    await client.query(s.countDeleted, [purged.length]);
  }
  return out;
}

/**
 * Whom a batch wakes when a job leaves the claimed state and so frees a
 * slot of its group, or of its name's global concurrency (`names`): claim
 * loops that a running job held jobs back for (ClaimResult `heldBack`),
 * this process's own among them, hear of it at commit (NOTIFY `payload`
 * on `channel`).
 */
export interface FreedSlotWake {
  channel: string;
  payload: string;
  names: readonly string[];
  /** Sent too when the batch finished a job (completed, dead, cancelled): what waiters for a job's result listen for (notify.ts). */
  finished?: string;
  /** Sent too when the batch moved a job into a state claim loops wait for (wakesOthers): new work, or a new due time. */
  work?: string;
}

/** One statement for the batch; only for requests that name distinct jobs. */
export async function transitionBatch(client: Queryable, s: TransitionStatements, reqs: readonly TransitionRequest[], wake?: FreedSlotWake): Promise<boolean[]> {
  const [text, values] = reqs.length === 1 ? [s.one, oneRequestValues(reqs[0]!, wake)] : batchStatement(s, reqs, wake);
  const { rows } = await client.query<{ ord: number | null; gone: boolean | null }>(text, values);
  const out = new Array<boolean>(reqs.length).fill(false);
  const purged: number[] = [];
  // The row without an ord is the wake-up's.
  for (const { ord, gone } of rows) {
    if (ord === null) continue;
    out[ord - 1] = true;
    if (gone === true) purged.push(reqs[ord - 1]!.id);
  }
  // A second look at the purged jobs' log lines, in a statement of its own: a purge that waited on a log
  // append's lock on the job row deletes it once the append commits, but the batch's own delete of the
  // lines read the snapshot taken before (ids are never reused: nothing else can be hit).
  if (purged.length > 0) await client.query(s.purgeLogs, [purged]);
  return out;
}

/** The values of one request, in BATCH_COLUMNS' order, written into `out` (a batch reuses one array for all its requests). */
function oneValues(t: TransitionRequest, out: unknown[] = new Array(BATCH_COLUMNS.length)): unknown[] {
  out[0] = t.id;
  out[1] = t.from;
  out[2] = t.token;
  out[3] = t.to;
  out[4] = t.event;
  out[5] = t.candidate ?? null;
  out[6] = t.at;
  out[7] = t.attempts;
  out[8] = json(t.lastError);
  out[9] = json(t.ctx);
  out[10] = t.runAt ?? null;
  out[11] = t.result ?? null;
  out[12] = t.workerId ?? null;
  out[13] = json(t.error);
  out[14] = t.purge === true ? (t.throttleAt ?? t.at) : null;
  out[15] = t.uniqueNeed ?? 0;
  out[16] = t.version;
  out[17] = t.expiredBy ?? null;
  out[18] = t.keepsHold === true;
  return out;
}

function batchStatement(s: TransitionStatements, reqs: readonly TransitionRequest[], wake?: FreedSlotWake): [string, unknown[]] {
  const { constant, values } = batchValues(reqs, wake);
  return [s.batch(constant), values];
}

/** The values of the one-request statement (TransitionStatements.one): the request's, then the wake-up's. */
export function oneRequestValues(t: TransitionRequest, wake?: FreedSlotWake): unknown[] {
  return [...oneValues(t), ...wakeValues(wake)];
}

/** The wake-up's values, $20 … $24 of either statement. */
function wakeValues(wake: FreedSlotWake | undefined): unknown[] {
  return [wake?.channel ?? null, wake?.payload ?? null, wake?.names ?? [], wake?.finished ?? null, wake?.work ?? null];
}

/**
 * The batch statement's values: per request field (BATCH_COLUMNS), one array,
 * or the value itself where every request has the same (`constant`); then the wake-up's.
 */
export function batchValues(reqs: readonly TransitionRequest[], wake?: FreedSlotWake): { constant: boolean[]; values: unknown[] } {
  const columns: unknown[][] = BATCH_COLUMNS.map(() => new Array(reqs.length));
  const row = new Array<unknown>(BATCH_COLUMNS.length);
  for (let i = 0; i < reqs.length; i++) {
    oneValues(reqs[i]!, row);
    for (let c = 0; c < row.length; c++) columns[c]![i] = row[c];
  }
  // One request is one row whatever is constant: the ids (distinct) keep at least one array.
  const constant = columns.map((col, c) => c !== 0 && col.every((v) => v === col[0]));
  const values = columns.map((col, c) => (constant[c] ? col[0] : col));
  return { constant, values: [...values, ...wakeValues(wake)] };
}

/** Whether the batch can run as one statement: no job named twice. */
export function distinctJobs(reqs: readonly TransitionRequest[]): boolean {
  return new Set(reqs.map((t) => t.id)).size === reqs.length;
}

/** States another instance's claim loop waits for (a claim, or a due timer): not held, not finished. */
export function wakesOthers(to: string): boolean {
  return to !== JobState.processing && !FINISHED_STATES.includes(to);
}
