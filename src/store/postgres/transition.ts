/**
 * transition(): compare-and-set moves, all in the caller's transaction. A
 * request changes its job only while the job is still at the `version` the
 * request was decided on (in `from` under `token`), so a worker that lost
 * its lease cannot settle and a decision made on an old read never lands. A move into
 * processing keeps the lease (a custom edge); any other clears it. A purge
 * (retention 0) deletes the job, its steps, log lines and history, under the same condition,
 * and counts the deletion (queue_meta `deleted`).
 *
 * Two forms with one outcome. A batch whose jobs are all distinct runs as one
 * statement over the requests unnested from arrays; a batch that names a job
 * twice runs request by request, in order, so that each sees what the one
 * before it did (as the SQLite store's does).
 */
import { FINISHED_STATES, JobState } from '../../../machines/job.machine.js';
import type { TransitionRequest } from '../store.js';
import type { Queryable } from './driver.js';
import { render } from './sql.js';

export interface TransitionStatements {
  move: string;
  /** update-fields.sql of the SQLite store: a job.update's new payload and priority, after its move. */
  updateFields: string;
  purge: string;
  history: string;
  purgeHistory: string;
  purgeSteps: string;
  purgeLogs: string;
  countDeleted: string;
  /** The batch statement for a batch whose columns marked true hold one value for every request (bound once, not as an array). */
  batch(constant: readonly boolean[]): string;
}

type Values = Record<'to' | 'attempts' | 'lastError' | 'ctx' | 'runAt' | 'result' | 'at' | 'uniqueNeed', string>;

/** What a move writes (transition.sql and transition-held.sql of the SQLite store); `self` qualifies the job's own columns. */
const set = (v: Values, self: string) => `state = ${v.to},
    attempts = ${v.attempts},
    last_error = ${v.lastError},
    ctx = ${v.ctx},
    run_at = coalesce(${v.runAt}, ${self}run_at),
    result = coalesce(${v.result}, ${self}result),
    lease_owner = CASE WHEN ${v.to} = {{processing}} THEN ${self}lease_owner END,
    lease_token = CASE WHEN ${v.to} = {{processing}} THEN ${self}lease_token END,
    locked_until = CASE WHEN ${v.to} = {{processing}} THEN ${self}locked_until END,
    unique_key = CASE WHEN ${self}unique_span >= ${v.uniqueNeed} THEN ${self}unique_key END,
    updated_at = ${v.at},
    version = ${self}version + 1`;

/**
 * The compare-and-set (transition.sql of the SQLite store): the job is still
 * at the version the request was decided on, in its `from` state under its
 * lease token, and, for a lease expiry, its lease has still run out.
 */
const match = (v: Record<'version' | 'from' | 'token' | 'expiredBy', string>, self: string) =>
  `${self}version = ${v.version} AND ${self}state = ${v.from} AND ${self}lease_token IS NOT DISTINCT FROM ${v.token}
    AND (${v.expiredBy} IS NULL OR ${self}locked_until IS NULL OR ${self}locked_until < ${v.expiredBy})`;

/** The arrays a batch binds, in order: the request's fields, one array each. */
const BATCH_COLUMNS = [
  ['id', 'bigint'], ['from_state', 'text'], ['token', 'text'], ['to_state', 'text'], ['event', 'text'], ['candidate', 'int'],
  ['at', 'bigint'], ['attempts', 'int'], ['last_error', 'text'], ['ctx', 'text'], ['run_at', 'bigint'], ['result', 'text'],
  ['worker_id', 'text'], ['error', 'text'], ['purge', 'boolean'], ['unique_need', 'int'], ['version', 'int'], ['expired_by', 'bigint'],
] as const;

/** The batch's parameter after its columns: the wake-up's channel, then its payload and names (FreedSlotWake). */
const WAKE = BATCH_COLUMNS.length + 1;

export function transitionStatements(schema: string, history: boolean): TransitionStatements {
  const param: Values = { to: '$4', attempts: '$5::int', lastError: '$6', ctx: '$7', runAt: '$8::bigint', result: '$9', at: '$10', uniqueNeed: '$11::int' };
  const column: Values = { to: 'r.to_state', attempts: 'r.attempts', lastError: 'r.last_error', ctx: 'r.ctx', runAt: 'r.run_at', result: 'r.result', at: 'r.at', uniqueNeed: 'r.unique_need' };
  // A column whose value is the same for every request (a batch of completions: the states, the event, the
  // nulls) is bound once as a scalar at its own position, so the wake-up's parameters keep theirs. Decoding
  // and unnesting the 18 arrays of a batch of 384 took ~2.3 ms a round trip against ~1 ms for the 6 that vary.
  const requests = (constant: readonly boolean[]) => {
    const varying = BATCH_COLUMNS.map((c, i) => [c, i] as const).filter(([, i]) => !constant[i]);
    const fixed = BATCH_COLUMNS.map(([name, type], i) => (constant[i] ? `, $${i + 1}::${type} AS ${name}` : '')).join('');
    return `SELECT u.*${fixed} FROM unnest(${varying.map(([[, type], i]) => `$${i + 1}::${type}[]`).join(', ')}) WITH ORDINALITY AS u (${varying.map(([[name]]) => name).join(', ')}, ord)`;
  };
  // The jobs are found by primary key, from an array the planner takes for a handful of ids
  // (`ANY (ARRAY(…))` is estimated at 10): it then reads the index, whatever it believes of the table.
  // Joined on `r` alone (or on the bound array, whose 400 ids it counts), it read the whole table
  // into a hash for every batch when it took the table for small (no statistics yet after a burst,
  // random_page_cost 4): 26 ms, then 6 ms, for 400 completions among 50k jobs, against ~2 ms.
  const cas = `j.id = ANY (ARRAY(SELECT id FROM r)) AND j.id = r.id AND ${match({ version: 'r.version', from: 'r.from_state', token: 'r.token', expiredBy: 'r.expired_by' }, 'j.')}`;
  const one = match({ version: '$12::int', from: '$2', token: '$3', expiredBy: '$13::bigint' }, '');

  return {
    move: render(`UPDATE {{schema}}.jobs SET ${set(param, '')} WHERE id = $1 AND ${one}`, schema),
    updateFields: render('UPDATE {{schema}}.jobs SET payload = coalesce($2, payload), priority = coalesce($3::int, priority) WHERE id = $1', schema),
    purge: render(`DELETE FROM {{schema}}.jobs WHERE id = $1 AND ${match({ version: '$4::int', from: '$2', token: '$3', expiredBy: '$5::bigint' }, '')}`, schema),
    history: render(
      `INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, candidate, at, worker_id, lease_token, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      schema,
    ),
    purgeHistory: render('DELETE FROM {{schema}}.job_history WHERE job_id = ANY($1::bigint[])', schema),
    purgeSteps: render('DELETE FROM {{schema}}.job_steps WHERE job_id = ANY($1::bigint[])', schema),
    purgeLogs: render('DELETE FROM {{schema}}.job_logs WHERE job_id = ANY($1::bigint[])', schema),
    countDeleted: render(`UPDATE {{schema}}.queue_meta SET value = value + $1 WHERE key = 'deleted'`, schema),
    batch: cached((constant) =>
      render(
      `WITH r AS (${requests(constant)}),
       moved AS (
         UPDATE {{schema}}.jobs j SET ${set(column, 'j.')}
         FROM r WHERE NOT r.purge AND ${cas}
         RETURNING r.ord, r.from_state, r.to_state, j.name, j.group_key
       ),
       purged AS (
         DELETE FROM {{schema}}.jobs j USING r WHERE r.purge AND ${cas}
         RETURNING r.ord, j.id, r.from_state, r.to_state, j.name, j.group_key
       ),
       purged_history AS (DELETE FROM {{schema}}.job_history WHERE job_id IN (SELECT id FROM purged)),
       purged_steps AS (DELETE FROM {{schema}}.job_steps WHERE job_id IN (SELECT id FROM purged)),
       purged_logs AS (DELETE FROM {{schema}}.job_logs WHERE job_id IN (SELECT id FROM purged)),
       counted AS (
         UPDATE {{schema}}.queue_meta SET value = value + (SELECT count(*) FROM purged)
         WHERE key = 'deleted' AND EXISTS (SELECT 1 FROM purged)
       )${
         history
           ? `,
       recorded AS (
         INSERT INTO {{schema}}.job_history (job_id, from_state, to_state, event, candidate, at, worker_id, lease_token, error)
         SELECT r.id, r.from_state, r.to_state, r.event, r.candidate, r.at, r.worker_id, r.token, r.error
         FROM r JOIN moved USING (ord) ORDER BY r.ord
       )`
           : ''
       }
       SELECT ord FROM moved UNION ALL SELECT ord FROM purged
       UNION ALL
       SELECT NULL FROM (SELECT pg_notify($${WAKE}, $${WAKE + 1})) AS notified
       WHERE $${WAKE}::text IS NOT NULL AND EXISTS (
         SELECT 1 FROM (SELECT * FROM moved UNION ALL SELECT ord, from_state, to_state, name, group_key FROM purged) AS done
         WHERE from_state = {{processing}} AND to_state <> {{processing}} AND (group_key IS NOT NULL OR name = ANY ($${WAKE + 2}::text[]))
       )
       UNION ALL
       SELECT NULL FROM (SELECT pg_notify($${WAKE}, $${WAKE + 3})) AS finished
       WHERE $${WAKE + 3}::text IS NOT NULL AND EXISTS (
         SELECT 1 FROM (SELECT to_state FROM moved UNION ALL SELECT to_state FROM purged) AS done
         WHERE to_state = {{completed}} OR to_state = {{dead}} OR to_state = {{cancelled}}
       )`,
      schema,
      ),
    ),
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

/** Request by request, in order. */
export async function transitionEach(client: Queryable, s: TransitionStatements, reqs: readonly TransitionRequest[], history: boolean): Promise<boolean[]> {
  const out: boolean[] = [];
  const purged: number[] = [];
  for (const t of reqs) {
    const cas = [t.version, t.expiredBy ?? null];
    if (t.purge) {
      const gone = (await client.query(s.purge, [t.id, t.from, t.token, ...cas])).rowCount === 1;
      if (gone) purged.push(t.id);
      out.push(gone);
      continue;
    }
    const values = [t.id, t.from, t.token, t.to, t.attempts, json(t.lastError), json(t.ctx), t.runAt ?? null, t.result ?? null, t.at, t.uniqueNeed ?? 0, ...cas];
    const changed = (await client.query(s.move, values)).rowCount === 1;
    if (changed && t.set) await client.query(s.updateFields, [t.id, t.set.payload ?? null, t.set.priority ?? null]);
    if (changed && history) {
      await client.query(s.history, [t.id, t.from, t.to, t.event, t.candidate ?? null, t.at, t.workerId ?? null, t.token, json(t.error)]);
    }
    out.push(changed);
  }
  if (purged.length > 0) {
    await client.query(s.purgeHistory, [purged]);
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
}

/** One statement for the batch; only for requests that name distinct jobs. */
export async function transitionBatch(client: Queryable, s: TransitionStatements, reqs: readonly TransitionRequest[], wake?: FreedSlotWake): Promise<boolean[]> {
  const { constant, values } = batchValues(reqs, wake);
  const { rows } = await client.query<{ ord: number | null }>(s.batch(constant), values);
  const out = new Array<boolean>(reqs.length).fill(false);
  // The row without an ord is the wake-up's.
  for (const { ord } of rows) if (ord !== null) out[ord - 1] = true;
  // A second look at the purged jobs' log lines, in a statement of its own: a purge that waited on a log
  // append's lock on the job row deletes it once the append commits, but the batch's own delete of the
  // lines read the snapshot taken before (ids are never reused: nothing else can be hit).
  const purged = reqs.filter((t, i) => t.purge && out[i]).map((t) => t.id);
  if (purged.length > 0) await client.query(s.purgeLogs, [purged]);
  return out;
}

/**
 * The batch statement's values: per request field (BATCH_COLUMNS), one array,
 * or the value itself where every request has the same (`constant`); then the wake-up's.
 */
export function batchValues(reqs: readonly TransitionRequest[], wake?: FreedSlotWake): { constant: boolean[]; values: unknown[] } {
  const columns: unknown[][] = BATCH_COLUMNS.map(() => new Array(reqs.length));
  reqs.forEach((t, i) => {
    const row = [t.id, t.from, t.token, t.to, t.event, t.candidate ?? null, t.at, t.attempts, json(t.lastError), json(t.ctx), t.runAt ?? null, t.result ?? null, t.workerId ?? null, json(t.error), t.purge === true, t.uniqueNeed ?? 0, t.version, t.expiredBy ?? null];
    row.forEach((value, c) => {
      columns[c]![i] = value;
    });
  });
  // One request is one row whatever is constant: the ids (distinct) keep at least one array.
  const constant = columns.map((col, c) => c !== 0 && col.every((v) => v === col[0]));
  const values = columns.map((col, c) => (constant[c] ? col[0] : col));
  return { constant, values: [...values, wake?.channel ?? null, wake?.payload ?? null, wake?.names ?? [], wake?.finished ?? null] };
}

/** Whether the batch can run as one statement: no job named twice. */
export function distinctJobs(reqs: readonly TransitionRequest[]): boolean {
  return new Set(reqs.map((t) => t.id)).size === reqs.length;
}

/** States another instance's claim loop waits for (a claim, or a due timer): not held, not finished. */
export function wakesOthers(to: string): boolean {
  return to !== JobState.processing && !FINISHED_STATES.includes(to);
}
