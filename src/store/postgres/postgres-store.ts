/**
 * The networked store: jobs in PostgreSQL, shared by every process and host
 * that opens the same schema. The engine drives it exactly as it drives the
 * SQLite store (src/store/sqlite/sqlite-store.ts), and each method keeps that
 * store's semantics; what differs is how they hold across processes:
 *
 * - A claim is one statement with FOR UPDATE SKIP LOCKED (claim.ts): claimers
 *   take disjoint jobs without waiting for each other. Claims of grouped jobs
 *   and of names with limits run one at a time under an advisory lock
 *   (claim-limited.ts), as every SQLite claim does.
 * - Every other change is a compare-and-set inside one transaction
 *   (transition.ts), as in SQLite; serialization failures and deadlocks are
 *   retried (open.ts).
 * - Other processes learn of new work through NOTIFY (notify.ts), where the
 *   SQLite store watches the file's WAL; and of a slot of a group or of a
 *   global concurrency that a job's end freed (transition.ts).
 * - The dashboard's change reads stop below ids still in flight
 *   (dashboard-reads.ts, safe-head.ts): ids are handed out at insert, not at
 *   commit.
 *
 * The factory is synchronous; the pool connects and migrates on first use.
 */
import { FINISHED_STATES, JobState } from '../../../machines/job.machine.js';
import { DatabaseError } from '../../errors.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import type { ParentMove, Store, StoreDiagnostics } from '../store.js';
import { postgresFlows } from './flows.js';
import { createPostgresRetention } from './retention.js';
import { toHistoryEntry, toJobOutcome, type HistoryRow, type OutcomeRow } from '../rows.js';
import { toJobRecord, type JobRow } from '../job-columns.js';
import { browseJobs } from './browse-jobs.js';
import { createClaimer } from './claim.js';
import { openDatabase } from './open.js';
import { createDashboardReads } from './dashboard-reads.js';
import { insertJobs, insertStatements, insertUnkeyed } from './insert.js';
import { createPostgresLimits } from './limits.js';
import { listJobs } from './list-jobs.js';
import type { Queryable } from './driver.js';
import { checkStorable, flowJobs } from './storable.js';
import { createListener, FINISHED_SUFFIX, VALUE_SUFFIX } from './notify.js';
import { createPostgresSchedules } from './schedules.js';
import { createPostgresSteps } from './steps.js';
import { createPostgresMessages } from './messages.js';
import { createPostgresLogs } from './logs.js';
import { createPostgresProcesses } from './processes.js';
import { checkSchema } from './sql.js';
import { statements } from './statements.js';
import { createPostgresRemoval } from './remove.js';
import { distinctJobs, transitionBatch, transitionEach, transitionStatements, wakesOthers, type FreedSlotWake } from './transition.js';
import { startsFreshRun } from '../transition-set.js';
import { createLeaseTokens } from '../lease-tokens.js';
import { foldStats } from '../queue-stats.js';

export interface PostgresStoreOptions {
  /** A libpq connection string: `postgres://user:password@host:5432/database`. */
  connection: string;
  /** The schema holding litejobs' tables, created if missing. Default `litejobs`. */
  schema?: string;
  /** Connections in the pool. Default 10. */
  poolSize?: number;
  /** Record each transition in `job_history`. */
  history: boolean;
  /** Timers for the change listener's reconnects. */
  clock?: Clock;
  onWarning?(message: string): void;
}

export function createPostgresStore(options: PostgresStoreOptions): Store {
  const schema = checkSchema(options.schema ?? 'litejobs');
  const clock = options.clock ?? systemClock;
  const history = options.history;
  const warn = (message: string) => options.onWarning?.(message);
  const db = openDatabase({ connection: options.connection, schema, poolSize: options.poolSize ?? 10, onWarning: warn });
  const tokens = createLeaseTokens();
  const instanceId = tokens.instance;
  // The channel is the schema's name: every store on one schema, and only those, hear each other.
  const channel = schema;
  const listener = createListener({ config: db.clientConfig('litejobs listen'), channel, instanceId, clock, onWarning: warn, where: db.where });

  const s = statements(schema);
  const insertSql = insertStatements(schema);
  const claim = createClaimer(db, schema, history, tokens.next);
  const transitionSql = transitionStatements(schema, history);
  /** Names with a global concurrency, as this process's claims carry them: a job of one that ends frees a slot others may wait for. */
  const limitedNames = new Set<string>();
  const freed = (): FreedSlotWake => ({ channel, payload: `${instanceId}.freed`, names: [...limitedNames], finished: `${instanceId}${FINISHED_SUFFIX}`, work: instanceId });
  const freedNotice = () => [channel, `${instanceId}.freed`];
  const dashboard = createDashboardReads(db, schema);
  const flows = postgresFlows(schema, insertSql, history);
  const removal = createPostgresRemoval(schema, db);

  const retention = createPostgresRetention(db, schema);
  const store: Store = {
    insert: async (jobs, at) => {
      if (jobs.length === 0) return [];
      checkStorable(jobs);
      // Other processes claim the new jobs, or arm a timer for the later ones, once notified at commit.
      if (jobs.every((j) => j.key === null && !j.unique)) return insertUnkeyed(db, insertSql, jobs, at, channel, instanceId);
      return db.tx(async (client) => {
        const results = await insertJobs(client, insertSql, jobs, at);
        // Delivered at commit: other processes claim the new jobs, or arm a timer for the later ones (a debounced job's new run time too).
        if (results.some((r, i) => r.created || jobs[i]!.unique?.kind === 'debounce')) await client.query(s.notify, [channel, instanceId]);
        return results;
      });
    },
    insertVia: async (caller, jobs, at) => {
      if (jobs.length === 0) return [];
      checkStorable(jobs);
      return db.external(async () => {
        const client = caller as Queryable;
        const results = await insertJobs(client, insertSql, jobs, at);
        // Delivered when the caller commits, and not at all on a rollback. Not this instance's own id:
        // its claim loop, woken now, finds nothing before that commit, so it must hear this too.
        if (results.some((r, i) => r.created || jobs[i]!.unique?.kind === 'debounce')) await client.query(s.notify, [channel, `${instanceId}.tx`]);
        return results;
      });
    },
    insertFlow: async (root, waiting, at) => {
      checkStorable(flowJobs(root));
      return db.tx(async (client) => {
        const out = await flows.insertFlow(client, root, waiting, at);
        await client.query(s.notify, [channel, instanceId]);
        return out;
      });
    },
    children: async (parentId, after, limit) => flows.children(db, parentId, after, limit),
    childCounts: async (parentId) => flows.childCounts(db, parentId),
    claim: async (req) => {
      for (const [name, limits] of req.limits ?? []) if (limits.globalConcurrency !== undefined) limitedNames.add(name);
      return claim(req);
    },
    transition: async (reqs) => {
      if (reqs.length === 0) return { moved: [], parentMoves: [] };
      // A job.update's new payload is held to the enqueue's rule: nothing is written if one is refused.
      for (const t of reqs) if (t.set?.payload !== undefined) checkStorable([{ name: `#${t.id}`, payload: t.set.payload }]);
      const none = () => reqs.map((): ParentMove[] => []);
      // The common batch (distinct jobs: completions, retries, a message's wake) is one statement, its
      // notifications in it: autocommitted on its own, one round trip instead of BEGIN, statement, NOTIFY, COMMIT.
      // A flow child's parent is settled in the same transaction, and an update's fields and a fresh run's
      // cleared steps are written request by request, so such batches take the long form.
      if (distinctJobs(reqs) && !reqs.some((t) => t.flow || t.set || startsFreshRun(t.event))) return { moved: await transitionBatch(db, transitionSql, reqs, freed()), parentMoves: none() };
      // An update's new fields, and a fresh run's cleared steps, are written request by request (rare: a caller's action).
      const oneByOne = !distinctJobs(reqs) || reqs.some((t) => t.set || startsFreshRun(t.event));
      return db.tx(async (client) => {
        const out = oneByOne ? await transitionEach(client, transitionSql, reqs, history) : await transitionBatch(client, transitionSql, reqs, freed());
        const parentMoves = reqs.some((t) => t.flow) ? await flows.settleParents(client, reqs, out) : none();
        const parentWakes = parentMoves.some((moves) => moves.some((m) => wakesOthers(m.to)));
        if (parentWakes || reqs.some((t, i) => out[i] && !t.purge && wakesOthers(t.to))) await client.query(s.notify, [channel, instanceId]);
        // Request by request (rare: a job named twice), which jobs held a slot is not read: any end of a lease may free one.
        else if (oneByOne && reqs.some((t, i) => out[i] && t.from === JobState.processing && t.to !== JobState.processing)) await client.query(s.notify, freedNotice());
        // Request by request, and a flow's parent: a finished job is announced here (the batch statement announces its own).
        const finishedHere = (oneByOne && reqs.some((t, i) => out[i] && FINISHED_STATES.includes(t.to))) || parentMoves.some((moves) => moves.some((m) => FINISHED_STATES.includes(m.to)));
        if (finishedHere) await client.query(s.notify, [channel, `${instanceId}${FINISHED_SUFFIX}`]);
        return { moved: out, parentMoves };
      });
    },
    heartbeat: async (id, token, lockedUntil) => (await db.query<{ running: boolean }>(s.heartbeat, [id, token, lockedUntil])).rows[0]?.running === true,
    expiredHolds: async (now, limit) => (await db.rows<{ id: number | string; token: string }>(s.expiredHolds, [now, limit])).map((r) => ({ id: Number(r.id), token: r.token })),
    releaseHold: async ({ id, token, version, uniqueNeed }) => {
      const state = (await db.query<{ state: string }>(s.releaseHold, [id, token, version, uniqueNeed])).rows[0]?.state ?? null;
      // A job given back into a state another instance's claim loop waits for: it hears of it.
      if (state !== null && wakesOthers(state)) await db.query(s.notify, [channel, instanceId]);
      return state;
    },
    progress: async (id, token, progress, at) => (await db.rows<{ n: number }>(s.progress, [id, token, progress, at, history]))[0]!.n === 1,
    held: async (leases) => {
      const rows = await db.rows<{ id: string | number; state: string; lease_token: string | null }>(s.held, [leases.map((l) => l.id)]);
      const held = new Set(rows.filter((r) => r.state === JobState.processing).map((r) => `${r.id}:${r.lease_token}`));
      return leases.map((l) => held.has(`${l.id}:${l.token}`));
    },
    expiredLeases: async (names, now, limit) => (await db.rows<JobRow>(s.expired, [names, now, limit])).map(toJobRecord),
    dueJobs: async (names, states, now, limit) => (await db.rows<JobRow>(s.due, [names, states, now, limit])).map(toJobRecord),
    nextDueAt: async (names, states) => {
      const lookups: Array<Promise<Array<{ at: number | null }>>> = [];
      if (states.includes(JobState.pending)) lookups.push(db.rows(s.nextPending, [names]));
      const delayed = states.filter((state) => state !== JobState.pending);
      if (delayed.length > 0) lookups.push(db.rows(s.nextDue, [names, delayed]));
      let min: number | null = null;
      for (const [row] of await Promise.all(lookups)) {
        const at = row?.at ?? null;
        if (at !== null && (min === null || at < min)) min = at;
      }
      return min;
    },
    get: async (id) => {
      const [row] = await db.rows<JobRow>(s.get, [id]);
      return row ? toJobRecord(row) : undefined;
    },
    outcome: async (id) => {
      const [row] = await db.rows<OutcomeRow>(s.outcome, [id]);
      return row ? toJobOutcome(row) : undefined;
    },
    list: async (filter) => listJobs(db, schema, filter),
    browse: async (filter) => browseJobs(db, schema, filter),
    history: async (id) => (await db.rows<HistoryRow>(s.history, [id])).map(toHistoryEntry),
    stats: async () => foldStats(await db.rows<{ state: string; name: string; n: number }>(s.stats)),
    externalChange: () => !db.closed && listener.externalChange(),
    watchChanges: (onChange) => (db.closed ? () => {} : listener.watch(onChange)),
    watchFinished: (onFinished) => (db.closed ? () => {} : listener.watchFinished(onFinished)),
    backup: async () => {
      throw new DatabaseError(
        'LJ_ERR_DATABASE',
        `database ${db.where}: litejobs copies SQLite files only; back up a PostgreSQL schema with pg_dump --schema=${schema}`,
      );
    },
    setPaused: async (name, paused, at) => {
      await db.tx(async (client) => {
        if (paused) {
          await client.query(s.pause, [name, at]);
          return;
        }
        // A lifted pause gives other processes' claim loops jobs to claim.
        if ((await client.query(s.resume, [name])).rowCount) await client.query(s.notify, [channel, instanceId]);
      });
    },
    paused: async () => (await db.rows<{ name: string }>(s.paused)).map((r) => r.name),
    ...createPostgresLimits(db, schema),
    ...createPostgresSchedules(db, schema, insertSql, (client) => client.query(s.notify, [channel, instanceId])),
    ...createPostgresSteps(db, schema),
    ...createPostgresMessages(db, schema, history, () => db.query(s.notify, [channel, `${instanceId}${VALUE_SUFFIX}`])),
    ...createPostgresLogs(db, schema),
    changes: dashboard.changes,
    countByStateAndName: dashboard.countByStateAndName,
    leases: dashboard.leases,
    cursorAt: dashboard.cursorAt,
    ...createPostgresProcesses(db, schema),
    ping: async () => {
      await db.rows(s.ping);
    },
    databaseNow: async () => Number((await db.rows<{ now: number | string }>(s.databaseNow))[0]!.now),
    diagnose: async ({ now }) => {
      const [[sizes], [expired]] = await Promise.all([
        db.rows<{ bytes: number; page_size: number; cache_bytes: number }>(s.sizes, [schema]),
        db.rows<{ n: number }>(s.expiredCount, [now]),
      ]);
      const out: StoreDiagnostics = {
        // The schema's own figures: tables and indexes, not the whole server.
        store: 'postgres',
        path: db.where,
        // Tables of the schema with their indexes and TOAST (pg_total_relation_size).
        fileBytes: sizes!.bytes,
        // The server's write-ahead log is shared by every database on it: not reported (0).
        walBytes: 0,
        pageSize: sizes!.page_size,
        pageCount: Math.ceil(sizes!.bytes / sizes!.page_size),
        // PostgreSQL reuses free space within each table (VACUUM): no free list to count (0).
        freePages: 0,
        // The server's shared buffers.
        cacheBytes: sizes!.cache_bytes,
        journalMode: 'postgresql',
        expiredLeases: expired!.n,
        // No integrity check: PostgreSQL has none built in (see the amcheck extension); `integrity` stays absent, "not checked".
      };
      return out;
    },
    ...retention,
    removeJobs: async (targets) => removal.removeJobs(targets),
    cleanJobs: async (filter) => removal.cleanJobs(filter),
    close: async () => {
      // Idle pool connections do not hold the process open (allowExitOnIdle), and neither does the
      // listener: without a handle of its own, Node would exit before they end and the caller's
      // `await close()` would never resolve. A timer holds it until they have.
      const keepAlive = setInterval(() => {}, 60_000);
      try {
        await listener.close();
        await db.close();
      } finally {
        clearInterval(keepAlive);
      }
    },
  };
  return store;
}
