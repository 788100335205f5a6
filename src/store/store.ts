/**
 * The storage contract: what the engine asks of a store, grouped by
 * responsibility (each group's types in contract/), and `Store`, all of them.
 * Every method is async so that a networked store (PostgreSQL: FOR UPDATE
 * SKIP LOCKED, LISTEN/NOTIFY) can implement the same contract; the SQLite
 * store answers synchronously underneath.
 *
 * The store never decides a state: the queue runs the job machine and hands
 * the store the target it produced. Every change is a compare-and-set on
 * (id, version, state, lease token): the version moves on with every claim
 * and transition, so nothing decided on an old read of a job lands once the
 * job has moved on, and a worker that lost its lease cannot settle.
 *
 * A job's shapes, and why each exists: contract/job.ts.
 */
import type { HistoryEntry, InsertResult, JobOutcome, JobRecord, NewJob } from './contract/job.js';
import type { GroupCount, LimitPause, LimitRecord } from './contract/limits.js';
import type { ClaimRequest, ClaimResult, TransitionRequest, TransitionResult } from './contract/moves.js';
import type { WorkerProcessRecord } from './contract/processes.js';
import type { BrowseFilter, BrowsePage, ChangeBatch, ChangeCursor, ChangeOptions, IdRange, LeaseView, ListFilter, QueueStats, StateNameCount } from './contract/reads.js';
import type { LogAppend, LogPage, LogRange, MessageSend, MessageTake, PublishedRecord, WaitStep, StepRecord, StepSave } from './contract/run-data.js';
import type { NewSchedule, ScheduleRecord } from './contract/schedules.js';
import type { BackupProgress, StoreDiagnostics } from './contract/upkeep.js';
import type { CallerClient, CleanFilter, FinishedPurge, FlowInsertResult, NamedPurge, NewFlowNode, RemoveTarget, SyncInsert } from './contract/writes.js';

export type * from './contract/job.js';
export type * from './contract/limits.js';
export type * from './contract/moves.js';
export type * from './contract/processes.js';
export type * from './contract/reads.js';
export type * from './contract/run-data.js';
export type * from './contract/schedules.js';
export type * from './contract/upkeep.js';
export type * from './contract/writes.js';

/** Writing jobs other than by a move (contract/writes.ts). */
export interface JobWrites {
  insert(jobs: readonly NewJob[], at: number): Promise<InsertResult[]>;
  /**
   * insert() through the caller's connection, inside its transaction: the jobs
   * commit or roll back with the caller's own writes, and other processes hear
   * of them at its commit. A store that cannot share a caller's transaction
   * leaves this out.
   */
  insertVia?(client: CallerClient, jobs: readonly NewJob[], at: number): Promise<InsertResult[]>;
  /**
   * insert(), synchronously, all or nothing: with the application's own
   * connection when the store was given one (inside the application's
   * transaction if one is open: it commits or rolls back with it), otherwise
   * with the store's own. A store that cannot write synchronously leaves this out.
   */
  insertSync?(jobs: readonly NewJob[], at: number): SyncInsert;
  /**
   * Inserts a flow in one transaction: each parent in the rule's waiting
   * state with its count of children, each child pointing at its parent.
   * A node without children is inserted as a plain job. Flow jobs carry no
   * key and no unique guard.
   */
  insertFlow(root: NewFlowNode, waiting: string, at: number): Promise<FlowInsertResult>;
  /**
   * Deletes jobs, with their steps, log lines and history, in one transaction: each one
   * only while it is still at the target's version and state and holds no
   * lease (one answer per target, false where it moved on or was gone).
   * Deleted ids are never handed out again.
   */
  removeJobs(targets: readonly RemoveTarget[], at: number): Promise<boolean[]>;
  /**
   * Deletes up to `filter.limit` jobs in `filter.state` (of `filter.name`)
   * whose last change came before `filter.before`, with their steps, log lines and
   * history; returns how many. Outside the finished states, a leased job
   * and a flow child (its parent waits for it) are never taken.
   */
  cleanJobs(filter: CleanFilter, at: number): Promise<number>;
  /**
   * Deletes up to `limit` jobs finished in `state` before `before`, but those
   * of the names in `except` (FinishedPurge), with their history, steps and
   * log lines; returns how many.
   */
  purgeFinished(state: string, before: number, limit: number, o?: FinishedPurge): Promise<number>;
  /**
   * Deletes up to `limit` finished jobs of one name in one state that its
   * retention no longer keeps (updated before `before`, or past the newest
   * `keep`), with their history, steps and log lines; returns how many.
   */
  purgeNamed(rule: NamedPurge, limit: number): Promise<number>;
  /**
   * Saves job names' own retention rules (JSON; `null` deletes a name's, so
   * the queue's applies to it again), in one transaction.
   */
  saveNameRetention(rules: ReadonlyArray<{ name: string; rule: string | null }>, at: number): Promise<void>;
  /** Every job name's own retention rule, as saved. */
  nameRetention(): Promise<Array<{ name: string; rule: string }>>;
  /** Forgets up to `limit` kept outcomes (`JobOutcome`) of jobs finished before `before`, with their history; returns how many. */
  trimOutcomes(before: number, limit: number): Promise<number>;
}

/** Claims, transitions, leases and holds: the worker side's hot path (contract/moves.ts). */
export interface JobMoves {
  claim(request: ClaimRequest): Promise<ClaimResult>;
  /** Compare-and-set transitions, all in one transaction: which landed (`false` where the CAS missed), and the flow parents they moved. */
  transition(requests: readonly TransitionRequest[]): Promise<TransitionResult>;
  /**
   * Renews a lease, or the hold of a run whose job was moved on without it
   * (transition-set.sql): true while the job is still in the claimed state
   * under `token`, false once it is not (moved on, or the lease gone).
   */
  heartbeat(id: number, token: string, lockedUntil: number): Promise<boolean>;
  /**
   * Gives back a run's hold: the job is still held under `token` at
   * `version`, out of the claimed state; its unique key goes unless its span
   * reaches `uniqueNeed`. The state it was given back in, or null when
   * nothing was (moved on meanwhile: read it again).
   */
  releaseHold(hold: { id: number; token: string; version: number; uniqueNeed: number }): Promise<string | null>;
  /** Holds whose time ran out at `now` (their run died holding them), oldest first, at most `limit`. */
  expiredHolds(now: number, limit: number): Promise<Array<{ id: number; token: string }>>;
  /**
   * Whether each job is still leased under its token (a read): a job claimed
   * ahead of time is checked before its handler starts, so a cancel (or a
   * lease expiry) another process committed meanwhile is seen.
   */
  held(leases: ReadonlyArray<{ id: number; token: string }>): Promise<boolean[]>;
  /** Processing jobs of these names whose lease ran out before `now`. */
  expiredLeases(names: readonly string[], now: number, limit: number): Promise<JobRecord[]>;
  /** Jobs of these names, in one of `states`, whose `run_at` has come. */
  dueJobs(names: readonly string[], states: readonly string[], now: number, limit: number): Promise<JobRecord[]>;
  /** The earliest `run_at` among jobs of these names in `states`, or null. */
  nextDueAt(names: readonly string[], states: readonly string[]): Promise<number | null>;
}

/** What a run records beside its state: progress, steps, log lines (contract/run-data.ts). */
export interface RunData {
  /**
   * Records a running job's progress (JSON text) while `token` holds it, and
   * the update in the history (event `job.progress`, not a move: the
   * version stays) for the change feed. False: the lease is lost.
   */
  progress(id: number, token: string, progress: string, at: number): Promise<boolean>;
  /**
   * Records completed steps (or sleeps) of jobs, each while its job is still
   * leased under its token, in one transaction: one answer per item, false
   * when the lease is gone (nothing written for it). A step already recorded
   * under its name keeps its first row (true while the lease holds). A step's
   * `seq` is given by the store.
   */
  saveSteps(items: readonly StepSave[]): Promise<boolean[]>;
  /** The job's completed steps, in the order they completed. */
  steps(id: number): Promise<StepRecord[]>;
  /**
   * Appends runs' log lines (ctx.log) in one transaction: each item's lines
   * numbered after its job's stored ones (`skipped` numbers left out first),
   * then only the newest `keep` lines of each job stay. A job that is gone
   * gets none (its lines would outlive it).
   */
  appendLogs(items: readonly LogAppend[], keep: number): Promise<void>;
  /** A job's log lines numbered after `after`, oldest first, at most `limit`; and how many of its first lines were dropped. */
  jobLogs(id: number, range: LogRange): Promise<LogPage>;
  /**
   * Puts a message in a job's mailbox, after the messages on its topic sent
   * before it: 'not-found' when there is no such job, 'refused' when it is in
   * one of `refused`, 'duplicate' when a message of the job was sent under
   * its key before, taken or not, 'full' when its mailbox holds MAILBOX_MAX
   * messages not yet taken (nothing written then).
   */
  sendMessage(message: MessageSend): Promise<'sent' | 'duplicate' | 'full' | 'not-found' | 'refused'>;
  /**
   * Takes the oldest message on the topic not yet taken from the job's
   * mailbox (marked taken by the step) and records the wait's step with it, in one transaction, while the run holds
   * the job under its token: the step. When the step is recorded already (a
   * replay), that step, and nothing is taken: one round trip answers a wait
   * whether or not it ran before. Null when neither (nothing written);
   * false when the lease is gone.
   */
  takeMessage(take: MessageTake): Promise<WaitStep | null | false>;
  /** Whether the job's mailbox holds a message on the topic. */
  hasMessage(id: number, topic: string): Promise<boolean>;
  /** Jobs of these names in `waiting-message` whose mailbox holds a message on the topic they wait on (a missed wake), at most `limit`. */
  unseenMessages(names: readonly string[], limit: number): Promise<Array<{ id: number; topic: string }>>;
  /** The id of the job holding this idempotency key, or null. */
  jobIdByKey(key: string): Promise<number | null>;
  /**
   * Records a value a running job publishes under `key` (JSON text, the
   * latest per key) while `token` holds it, with a history row (event
   * `job.publish`, not a move) for the change feed: 'written'; 'lost' when
   * the lease is lost; 'full' when `key` is new and the job holds
   * PUBLISHED_KEYS_MAX keys (nothing written then).
   */
  publish(id: number, token: string, key: string, value: string, at: number): Promise<'written' | 'lost' | 'full'>;
  /** The values a job published, the latest per key, by key. */
  publishedValues(id: number): Promise<PublishedRecord[]>;
}

/** Reads of jobs: one, lists, pages, history, flows, counts, and the dashboard's change feed (contract/reads.ts). */
export interface JobReads {
  get(id: number): Promise<JobRecord | undefined>;
  /** How a job deleted by the move that finished it ended, while that is kept (`JobOutcome`). */
  outcome(id: number): Promise<JobOutcome | undefined>;
  list(filter: ListFilter): Promise<JobRecord[]>;
  /** One page of the jobs in one state, in that state's natural order, with a keyset cursor; filters read a bounded number of rows. */
  browse(filter: BrowseFilter): Promise<BrowsePage>;
  history(id: number): Promise<HistoryEntry[]>;
  /** A parent's children, in id order, after `after` (at most `limit`). */
  children(parentId: number, after: number, limit: number): Promise<JobRecord[]>;
  /** A parent's children counted by state. */
  childCounts(parentId: number): Promise<Record<string, number>>;
  stats(): Promise<QueueStats>;
  /**
   * New jobs and history rows after `after` (from the newest when `null`: no
   * changes, only the cursor), at most `limit` of each, in one read
   * transaction: counts asked for agree with the returned cursor. For
   * litejobs' dashboard; a store of one's own may leave these out.
   */
  changes?(after: ChangeCursor | null, limit: number, options?: ChangeOptions): Promise<ChangeBatch>;
  /** Exact job counts by state and name, of every job or of those with ids in `ids`. */
  countByStateAndName?(ids?: IdRange): Promise<StateNameCount[]>;
  /** Jobs held under a lease, and lease owners that claimed since `since` (of the newest `limit` history rows at most). */
  leases?(since: number, limit: number): Promise<{ running: LeaseView[]; claimers: Array<{ owner: string; at: number }> }>;
  /** A cursor just before the first job created and the first history row written at or after `at` (ids follow time, near enough). */
  cursorAt?(at: number): Promise<ChangeCursor>;
}

/** Pauses and limits, and the database's clock they are kept on (contract/limits.ts). */
export interface LimitControls {
  /** Pauses (`paused: true`) or resumes a job name, or the whole queue (`WHOLE_QUEUE`). Claims skip paused names. */
  setPaused(name: string, paused: boolean, at: number): Promise<void>;
  /** The paused names, `WHOLE_QUEUE` among them when the whole queue is paused. */
  paused(): Promise<string[]>;
  /** No claim of this name or group (`kind`) before `until` (a later pause already in force stays). */
  pauseLimit(kind: 'name' | 'group', key: string, until: number, at: number): Promise<void>;
  /** The name and group pauses in force at `now` (pauseLimit). */
  pauses(now: number): Promise<LimitPause[]>;
  /**
   * The database's clock, ms since the epoch: the clock of the windows every
   * process shares (rate-limit tokens, pauses, throttle windows; see
   * engine/core/shared-time.ts). A store on the host's own clock answers at once.
   */
  databaseNow(): number | Promise<number>;
  /** Sets (or with null, removes) the concurrency of one group, overriding the definitions' `groupConcurrency`. */
  setGroupConcurrency(group: string, concurrency: number | null, at: number): Promise<void>;
  /**
   * Saves a job name's limits changed while the queue runs (JSON: the fields
   * set over its definitions'; engine/core/live-limits.ts), or with null
   * deletes them, so the definitions' apply again.
   */
  saveNameLimits(name: string, rule: string | null, at: number): Promise<void>;
  /** Every job name's limits changed while the queue runs, as saved. */
  nameLimits(): Promise<Array<{ name: string; rule: string }>>;
  /** Every limit row: buckets, pauses, group concurrency. */
  limits(): Promise<LimitRecord[]>;
  /** Pending and running job counts of the groups with either, most running then most pending first, at most `limit`. */
  groupCounts(limit: number): Promise<GroupCount[]>;
  /** Leased jobs of each of these names (names without any are left out): a walk over the leased jobs, not the table. */
  runningByName(names: readonly string[]): Promise<Array<{ name: string; n: number }>>;
}

/** Schedules and their firing (contract/schedules.ts). */
export interface ScheduleStore {
  /** Adds the schedule under its id, or replaces its definition (its last slot and count of fired slots stay). */
  saveSchedule(schedule: NewSchedule, at: number): Promise<void>;
  /** Removes the schedule; false when there was none of that id. */
  deleteSchedule(id: string): Promise<boolean>;
  /** Every schedule, by id. */
  schedules(): Promise<ScheduleRecord[]>;
  /**
   * One firing of a schedule, in one transaction: while the schedule still
   * holds the definition it was read with (`read`: its version, and under a
   * run limit its count of fired slots), inserts the slots' `jobs` (one per
   * slot; each one created counts as fired) and records `slot` as its last handled
   * slot, unless a later one already is (processes race here).
   * Null, with nothing written, when the schedule changed or went since it
   * was read: the next pass reads it afresh.
   */
  fireSchedule(read: ScheduleRecord, jobs: readonly NewJob[], slot: number, at: number): Promise<InsertResult[] | null>;
}

/** The process registry: processes running workers, for the dashboard (contract/processes.ts). */
export interface ProcessRegistry {
  /**
   * The process registry (process-records.ts): writes this process's row, or
   * renews its `seenAt`, and deletes the rows of processes gone quiet (no
   * heartbeat for PROCESS_GONE_BEATS of their intervals at `record.seenAt`),
   * in one small transaction. Never on the claim path: a queue calls it when
   * it starts and every few seconds after. A store of one's own may leave
   * the registry out; the dashboard then shows lease owners only.
   */
  beatProcess?(record: WorkerProcessRecord): Promise<void>;
  /** Deletes the row of a process that stops running workers. */
  removeProcess?(owner: string): Promise<void>;
  /** The registered processes whose heartbeat has not aged out at `now`, by owner. */
  processes?(now: number): Promise<WorkerProcessRecord[]>;
}

/** Hearing of other connections' commits, and keeping the store: backups, the doctor, the connection (contract/upkeep.ts). */
export interface StoreUpkeep {
  /** True when another connection committed since the last call (cheap; polled). */
  externalChange(): boolean;
  /**
   * Calls `onChange` soon after another connection commits, so the claim loop
   * need not wait for its next `externalChange()` poll (SQLite: a watch on the
   * WAL; a networked store: e.g. LISTEN/NOTIFY). A hint: the claim loop still
   * confirms it with `externalChange()` and keeps polling for what it misses.
   * Returns a function that stops the calls. Must not keep the process alive.
   * `from`: the committing instance, where the store can tell (PostgreSQL:
   * the notification's payload).
   */
  watchChanges?(onChange: (from?: string) => void): () => void;
  /**
   * Calls `onFinished` soon after another connection commits a job into a
   * finished state (completed, dead, cancelled): a hint for those waiting for
   * a job's result (`queue.result`), who read the job to see. A store whose
   * `watchChanges` hears every commit leaves this out (SQLite: the WAL);
   * PostgreSQL sends a notification of its own, which claim loops do not
   * hear. Returns a function that stops the calls.
   */
  watchFinished?(onFinished: () => void): () => void;
  /** An online copy of the whole database; `onProgress` is called as pages are copied. */
  backup(destination: string, onProgress?: (progress: BackupProgress) => void): Promise<void>;
  /** Resolves while the database answers a read; throws a DatabaseError otherwise. */
  ping(): Promise<void>;
  diagnose(options: { integrity: boolean; now: number }): Promise<StoreDiagnostics>;
  close(): Promise<void>;
}

/** A store: every group of the contract. Optional methods may be left out by a store of one's own (each says what goes without it). */
export interface Store extends JobWrites, JobMoves, RunData, JobReads, LimitControls, ScheduleStore, ProcessRegistry, StoreUpkeep {}
