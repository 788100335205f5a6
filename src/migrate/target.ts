/**
 * The PostgreSQL schema `litejobs migrate` copies into, opened through the
 * store's own connection code, so the schema is created and migrated exactly
 * as a queue would do it.
 *
 * Progress lives in the schema's queue_meta, as rows named
 * `migrate <source path> <field>`, and every batch updates them in the
 * transaction that writes its jobs: whatever ends a run (Ctrl+C, SIGKILL, a
 * lost connection), the rows say exactly which jobs are in.
 *
 * - `upto`: the highest source id copied; the next batch starts above it.
 * - `pass_from`, `pass_open`: a pass copies (pass_from, upto]; it stays open
 *   until verified, so a resumed run verifies all of it.
 * - `copied:<state>`: the pass's jobs by state, counted in the target as
 *   each batch wrote them (workers on the schema may move them on since).
 * - `skipped:<id>`: a source job left out because another job in the target
 *   holds its idempotency key (the value is that job's id).
 *
 * Paused names, limit rows and schedules are copied on the first run only.
 */
import { MigrateError } from '../errors.js';
import { openDatabase, type Database } from '../store/postgres/open.js';
import type { Queryable } from '../store/postgres/driver.js';
import type { JobRow } from '../store/job-columns.js';
import type { LimitRow } from '../store/limit-rows.js';
import type { ScheduleRow } from '../store/rows.js';
import { asArrays, LIMIT_COLUMNS } from './columns.js';
import type { NameRules, SourceBatch } from './source.js';
import { historyColumns, identityMover, jobColumns, logColumns, messageColumns, stepColumns, valueColumns } from './target-rows.js';
import { targetStatements } from './target-sql.js';

export interface PassState {
  /** The highest source id in the target. */
  upTo: number;
  /** The pass under way covers (passFrom, upTo]. */
  passFrom: number;
  /** An interrupted pass goes on. */
  resumed: boolean;
  /** Nothing of this file was in the target yet: ids were reserved and paused names copied. */
  firstRun: boolean;
}

export interface BatchResult {
  copied: number;
  history: number;
  /** Jobs found in the target already, as an earlier copy of the same file left them (same id, name and creation time). */
  present: number;
  skipped: Array<{ id: number; key: string; heldBy: number }>;
}

export interface Target {
  readonly where: string;
  /** This source's `upto` (0 before its first run); reads only. */
  copiedUpTo(): Promise<number>;
  beginPass(first: {
    reserve: number;
    maxIds: { job: number; history: number };
    paused: Array<{ name: string; paused_at: number }>;
    limits: LimitRow[];
    nameRules: NameRules;
    schedules: ScheduleRow[];
  }): Promise<PassState>;
  copyBatch(after: number, batch: SourceBatch): Promise<BatchResult>;
  /** The open pass's per-state counts and skipped jobs. */
  tallies(pass: { passFrom: number; upTo: number }): Promise<{ copied: Map<string, number>; skipped: Array<{ id: number; heldBy: number }> }>;
  endPass(): Promise<void>;
  close(): Promise<void>;
}

export function openTarget(o: { connection: string; schema: string; identity: string }): Target {
  const db: Database = openDatabase({ connection: o.connection, schema: o.schema, poolSize: 2 });
  const s = targetStatements(o.schema);
  const prefix = `migrate ${o.identity} `;
  const key = { upTo: `${prefix}upto`, passFrom: `${prefix}pass_from`, passOpen: `${prefix}pass_open`, copied: `${prefix}copied:`, skipped: `${prefix}skipped:` };
  const readMeta = async (client: Queryable = db) => {
    const rows = (await client.query<{ key: string; value: number }>(s.meta, [prefix])).rows;
    return new Map(rows.map((r) => [r.key, r.value]));
  };
  const setMeta = (client: Queryable, entries: ReadonlyArray<readonly [string, number]>) =>
    client.query(s.setMeta, [entries.map(([k]) => k), entries.map(([, v]) => v)]);
  const identity = identityMover(o.schema, s.sequence);

  return {
    where: db.where,
    copiedUpTo: async () => (await readMeta()).get(key.upTo) ?? 0,

    beginPass: (first) =>
      db.tx(async (client) => {
        // Two runs of the same file start one after the other.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [prefix]);
        const meta = await readMeta(client);
        const upTo = meta.get(key.upTo);
        if (upTo === undefined) {
          await setMeta(client, [[key.upTo, 0], [key.passFrom, 0], [key.passOpen, 1]]);
          await client.query(s.pausedNames, [first.paused.map((p) => p.name), first.paused.map((p) => p.paused_at)]);
          // Buckets, pauses and group concurrency go over as they are: the target's workers go on from them.
          await client.query(s.limits, asArrays(first.limits, LIMIT_COLUMNS));
          // Job names' limits changed while the file's queues ran, and their own retention: the target's own rules kept.
          for (const [text, rows] of [[s.nameLimits, first.nameRules.limits], [s.nameRetention, first.nameRules.retention]] as const) {
            await client.query(text, [rows.map((r) => r.name), rows.map((r) => r.rule), rows.map((r) => r.updated_at)]);
          }
          // A schedule of the same id already in the target is the target's own: kept.
          const col = <K extends keyof ScheduleRow>(k: K) => first.schedules.map((row) => row[k] ?? null);
          const flag = first.schedules.map((row) => row.immediately === 1 || row.immediately === true);
          await client.query(s.schedules, [
            col('id'), col('name'), col('cron'), col('every_ms'), col('tz'), col('payload'), col('missed'), col('start_at'), col('end_at'),
            col('run_limit'), flag, first.schedules.map((row) => row.fired ?? 0), col('last_slot'), col('created_at'), col('updated_at'),
          ]);
          // Ids the file's producers hand out until the switch-over ends stay free: the target's own start above them.
          await identity.advance(client, 'jobs', first.maxIds.job + first.reserve);
          await identity.advance(client, 'job_history', first.maxIds.history + first.reserve);
          return { upTo: 0, passFrom: 0, resumed: false, firstRun: true };
        }
        if (meta.get(key.passOpen) === 1) return { upTo, passFrom: meta.get(key.passFrom) ?? 0, resumed: true, firstRun: false };
        await client.query(s.dropTallies, [key.copied]);
        await setMeta(client, [[key.passFrom, upTo], [key.passOpen, 1]]);
        return { upTo, passFrom: upTo, resumed: false, firstRun: false };
      }),

    copyBatch: (after, batch) =>
      db.tx(async (client) => {
        // The row lock orders this batch after any other run's on the same file; a moved mark means one is under way.
        const [mark] = (await client.query<{ value: number }>(s.metaFor, [key.upTo])).rows;
        if (mark?.value !== after) {
          throw new MigrateError('LJ_ERR_MIGRATE_CONFLICT', `another litejobs migrate of this file is copying into ${db.where}: let it finish, then run again`);
        }
        const present = await findPresent(client, s.jobsAt, batch.jobs, db.where);
        const fresh = batch.jobs.filter((j) => !present.has(j.id));
        const inserted = new Set(fresh.length ? (await client.query<{ id: number }>(s.insertJobs, jobColumns(fresh))).rows.map((r) => r.id) : []);
        const left = fresh.filter((j) => !inserted.has(j.id));
        const holders = left.length ? (await client.query<{ id: number; key: string }>(s.holders, [left.map((j) => j.key)])).rows : [];
        const skipped = left.map((j) => ({ id: j.id, key: j.key!, heldBy: holders.find((h) => h.key === j.key)?.id ?? 0 }));

        const history = batch.history.filter((h) => inserted.has(h.job_id));
        if (history.length) {
          const [taken] = (await client.query<{ id: number }>(s.historyAt, [history.map((h) => h.id)])).rows;
          if (taken) throw conflict(`history row ${taken.id} is already held by another row in ${db.where}`);
          await client.query(s.insertHistory, historyColumns(history));
        }
        const steps = batch.steps.filter((step) => inserted.has(step.job_id));
        if (steps.length) await client.query(s.insertSteps, stepColumns(steps));
        const logs = batch.logs.filter((line) => inserted.has(line.job_id));
        if (logs.length) await client.query(s.insertLogs, logColumns(logs));
        const messages = batch.messages.filter((m) => inserted.has(m.job_id));
        if (messages.length) await client.query(s.insertMessages, messageColumns(messages));
        const values = batch.values.filter((v) => inserted.has(v.job_id));
        if (values.length) await client.query(s.insertValues, valueColumns(values));

        const tally = new Map<string, number>();
        const ids = [...inserted];
        if (ids.length) for (const r of (await client.query<{ state: string; n: number }>(s.statesOf, [ids])).rows) tally.set(r.state, r.n);
        for (const j of batch.jobs) if (present.has(j.id)) tally.set(j.state, (tally.get(j.state) ?? 0) + 1);
        if (tally.size) await client.query(s.addMeta, [[...tally.keys()].map((st) => key.copied + st), [...tally.values()]]);
        const last = batch.jobs.at(-1)!.id;
        await setMeta(client, [[key.upTo, last], ...skipped.map((k) => [key.skipped + k.id, k.heldBy] as const)]);
        // Never below an id copied: a later catch-up can run past the reserve.
        await identity.advance(client, 'jobs', last);
        if (history.length) await identity.advance(client, 'job_history', history.at(-1)!.id);
        if (ids.length) await client.query(s.notify, [o.schema, 'litejobs migrate']);
        return { copied: ids.length, history: history.length, present: present.size, skipped };
      }),

    async tallies({ passFrom, upTo }) {
      const copied = new Map<string, number>();
      const skipped: Array<{ id: number; heldBy: number }> = [];
      for (const [k, value] of await readMeta()) {
        if (k.startsWith(key.copied)) copied.set(k.slice(key.copied.length), value);
        if (!k.startsWith(key.skipped)) continue;
        const id = Number(k.slice(key.skipped.length));
        if (id > passFrom && id <= upTo) skipped.push({ id, heldBy: value });
      }
      return { copied, skipped };
    },
    endPass: async () => {
      await db.tx((client) => setMeta(client, [[key.passOpen, 0]]));
    },
    close: () => db.close(),
  };
}

const conflict = (message: string) => new MigrateError('LJ_ERR_MIGRATE_CONFLICT', `${message}: nothing of this batch was written`);

/**
 * Target jobs with the batch's ids. One with the same name and creation time
 * is the same job, copied by an earlier run (under another path of the same
 * file, say): it stays as it is. Any other is a different job: the batch
 * stops before writing anything.
 */
async function findPresent(client: Queryable, jobsAt: string, jobs: readonly JobRow[], where: string): Promise<Set<number>> {
  const rows = (await client.query<{ id: number; name: string; created_at: number }>(jobsAt, [jobs.map((j) => j.id)])).rows;
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const present = new Set<number>();
  for (const row of rows) {
    const job = byId.get(row.id)!;
    if (row.name === job.name && row.created_at === job.created_at) {
      present.add(row.id);
      continue;
    }
    throw conflict(
      `job id ${row.id} is already held in ${where} by another job ("${row.name}", created ${new Date(row.created_at).toISOString()}; the SQLite job is "${job.name}", created ${new Date(job.created_at).toISOString()})`,
    );
  }
  return present;
}
