/**
 * What a run records beside its job's state: durable steps (ctx.step,
 * ctx.sleep), log lines (ctx.log) and progress (ctx.progress).
 */

/**
 * The history event of a progress update (`RunData.progress`): a change the
 * feed carries (its value in the row's `data`), not a move. From and to are
 * the state the job runs in, the version stays, and a job's history
 * (`history`), the counts and the edge rates leave it out.
 */
export const PROGRESS_EVENT = 'job.progress';

/** The history event of a published value (`RunData.publish`): like a progress update, a change of the feed and no move; `{ key, value }` in its `data`. */
export const PUBLISH_EVENT = 'job.publish';

/** The history events that are changes of the feed but no move. */
export const RUN_VALUE_EVENTS: readonly string[] = [PROGRESS_EVENT, PUBLISH_EVENT];

/** A value a job published (ctx.publish), the latest under its key. */
export interface PublishedRecord {
  key: string;
  /** JSON text. */
  value: string;
  at: number;
}

/** A completed step (ctx.step) or sleep (ctx.sleep) of a job, as stored. */
export interface StepRecord {
  name: string;
  /** 1 for the job's first completed step, 2 for the next, … */
  seq: number;
  /** JSON text of the step's result; null: undefined. */
  result: string | null;
  /** A sleep: when it ends, ms since the epoch; null for a step. */
  wakeAt: number | null;
  attempt: number;
  at: number;
}

/** One step to record: the job, the lease token its run holds, the step. */
export interface StepSave {
  id: number;
  token: string;
  step: Omit<StepRecord, 'seq'>;
}

/** A line a handler logged, as stored. */
export interface LogRecord {
  /** 1 for the job's first line, 2 for the next, …: the cursor of `jobLogs`. */
  seq: number;
  /** When it was logged, ms since the epoch. */
  at: number;
  /** The attempt that logged it. */
  attempt: number;
  /** pino's level name: trace, debug, info, warn, error, fatal. */
  level: string;
  message: string;
  /** JSON text of the line's own fields (an object); null: none. */
  fields: string | null;
}

/** A line to append: numbered by the store. */
export type LogLineInput = Omit<LogRecord, 'seq' | 'attempt'>;

/**
 * One run's lines to append to its job, numbered after the job's stored
 * ones. `skipped` numbers are left out in front of them: lines the run
 * dropped itself (it logged more than a job keeps before they were written),
 * so that they count as dropped.
 */
export interface LogAppend {
  id: number;
  attempt: number;
  skipped: number;
  lines: LogLineInput[];
}

/** One page of a job's lines, oldest first. */
export interface LogPage {
  lines: LogRecord[];
  /** How many of the job's first lines are gone: dropped to keep only its newest. */
  dropped: number;
}

/** Lines of `jobLogs`: those numbered after `after`, at most `limit`. */
export interface LogRange {
  after: number;
  limit: number;
}

/** Messages a job's mailbox holds not yet taken, at most: one more is refused ('full'). */
export const MAILBOX_MAX = 1000;

/**
 * The most keys one job publishes values under (ctx.publish): each is kept
 * with the job and every read of it (getJob, the page, litejobs job) carries
 * them all, so a handler publishing under made-up keys cannot grow a job
 * without bound. A key it holds already takes a new value at any time.
 */
export const PUBLISHED_KEYS_MAX = 100;

/** A message for a job's mailbox (queue.signal). */
export interface MessageSend {
  id: number;
  topic: string;
  /** The message as JSON text. */
  data: string;
  /** The sender's idempotency key (a hook's delivery id): a message sent again under it is not sent twice. Null: none. */
  key: string | null;
  at: number;
  /** States whose jobs take no message (the job's machine's finished states). */
  refused: readonly string[];
}

/** A wait (ctx.waitFor) taking the oldest message on its topic, recorded as its step. */
export interface MessageTake {
  id: number;
  /** The lease token the run holds. */
  token: string;
  topic: string;
  /** The wait's step: its result is written as `{"message": <data>}`. */
  step: { name: string; attempt: number; at: number };
}

/**
 * A wait's step as Store.takeMessage leaves it: its result (`{"message": …}`,
 * or a timeout's), and, when an earlier run recorded it (a replay: nothing
 * was taken now), that run's attempt.
 */
export interface WaitStep {
  result: string | null;
  replayed: number | null;
}
