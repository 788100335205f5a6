/**
 * What the pool (main thread) and a handler thread say to each other, over
 * the thread's own port. A thread runs one job at a time, but it outlives the
 * job: every message names its run (`seq`), so that a late message of an
 * earlier run (a reply to a heartbeat, a log line from a stray timer) cannot
 * be taken for the current one.
 */
import type { ErrorInfo } from '../../../../machines/policy.js';
import type { TraceCarrier } from '../../../telemetry/trace-context.js';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** What a thread needs to run one job (the pool's ThreadJob; here so that the thread imports no pool code). */
export interface JobSpec {
  /** File URL (href) of the handler module. */
  module: string;
  /** JSON text of the payload (parsed inside the thread). */
  payload: string;
  jobId: number;
  name: string;
  attempt: number;
  /** A schedule's job: its cron slot, ms since the epoch (HandlerContext `slot`). */
  slot?: number;
  workerId: string;
  /** The attempt's span (W3C fields) when the main thread traces it: the thread's handler runs in its context. */
  trace?: TraceCarrier;
  /**
   * A rate-limited job's start deadline on this machine's clock (Date.now()): a thread that
   * gets to the handler only then (it waited for a thread, or for its module) does not call it.
   */
  notAfter?: number;
}

/**
 * Why the job's signal aborted: the reason string ('cancel', 'shutdown',
 * 'lease'), or an error (a TimeoutError) reduced to what survives the port;
 * the thread builds an error of the same code from it.
 */
export type WireReason = string | { name: string; message: string; code?: string };

/** The handler's own outcome, or `late` (never called: past `notAfter`); the pool adds `terminated` when it has to end the thread. */
export type SettledOutcome = { kind: 'completed'; result: string | undefined } | { kind: 'failed'; error: ErrorInfo } | { kind: 'late' };

export type ToThread =
  | { type: 'run'; seq: number; job: JobSpec }
  | { type: 'abort'; seq: number; reason: WireReason }
  | { type: 'reply'; seq: number; id: number; ok: true; value: boolean }
  | { type: 'reply'; seq: number; id: number; ok: false; error: ErrorInfo };

export type FromThread =
  | { type: 'call'; seq: number; id: number; op: 'heartbeat' }
  | { type: 'call'; seq: number; id: number; op: 'progress'; value: string }
  | { type: 'log'; seq: number; level: LogLevel; obj: Record<string, unknown> | undefined; msg: string | undefined }
  | { type: 'done'; seq: number; outcome: SettledOutcome };
