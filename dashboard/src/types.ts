/** The shapes of the dashboard's JSON API, as the page reads them. */

// The server's own types, imported as types only (nothing of the server reaches the bundle).
import type { MachineGraph, MachineGraphEdge, MachineGraphState } from '../../src/diagram/machine-graph.js';
import type { Box, DiagramLayout, PlacedBundle, Point } from '../../src/diagram/layout-types.js';

export type { Box, DiagramLayout, MachineGraph, PlacedBundle, Point };
export type GraphState = MachineGraphState;
export type GraphEdge = MachineGraphEdge;

export interface DashboardGraph {
  id: string;
  /** null: every job name no other graph claims. */
  names: string[] | null;
  graph: MachineGraph;
  /** null where the server could not lay the chart out in time: the page lists the states instead. */
  layouts: { RIGHT: DiagramLayout | null; DOWN: DiagramLayout | null };
}
export interface Paused {
  all: boolean;
  names: string[];
}
export interface DashboardConfig {
  readOnly: boolean;
  graphs: DashboardGraph[];
  names: string[];
  paused: Paused;
}
/** Jobs per state, then per name. */
export type NameCounts = Record<string, Record<string, number>>;
export interface Counts {
  at: number;
  total: number;
  states: Record<string, number>;
  names: NameCounts;
  paused: Paused;
}
/** Times arrive as ms since the epoch or as ISO text: the page accepts both. */
export type Time = number | string;
/** A page of one state's jobs (`GET /v1/dashboard/jobs`), as the server types it. */
export type { JobSummary } from '../../src/store/reads.js';
export type { BrowsePage as JobPage } from '../../src/store/reads.js';
export interface ErrorInfo {
  name: string;
  message: string;
  stack?: string;
  code?: string;
}
export interface JobFull {
  id: number;
  name: string;
  state: string;
  payload: unknown;
  result?: unknown;
  error?: ErrorInfo;
  lastError?: ErrorInfo;
  attempts: number;
  maxAttempts?: number;
  priority: number;
  runAt: Time;
  createdAt: Time;
  updatedAt: Time;
  leaseOwner?: string | null;
  lockedUntil?: Time | null;
  progress?: number | null;
  key?: string | null;
  heldKey?: { kind: string; key: string };
  group?: string;
  /** A flow's child: the parent waiting for it. */
  parentId?: number;
  /** A flow's parent: its children not finished yet, those that failed, its policy. */
  children?: { left: number; failed: number; onChildFailure: 'fail' | 'continue' };
}
export interface HistoryRow {
  from: string | null;
  to: string;
  event: string;
  /** The guarded candidate taken when not the first (the edge `from:event:to#<candidate>`). */
  candidate?: number;
  at: Time;
  workerId?: string | null;
  error?: ErrorInfo;
}
/** A completed durable step (ctx.step) or sleep (ctx.sleep) of a job. */
export interface StepRow {
  name: string;
  seq: number;
  result?: unknown;
  /** A sleep: when it ends; null for a step. */
  wakeAt: Time | null;
  attempt: number;
  at: Time;
}
export interface JobDetail {
  job: JobFull;
  history: HistoryRow[];
  /** Absent from a server without durable steps. */
  steps?: StepRow[];
  /** The events a caller may send the job now, read off its machine (absent from an older server). */
  events?: string[];
}
export interface Series {
  throughput: { step: number; end: number; completed: number[]; failed: number[] };
  latency: { step: number; end: number; p50: (number | null)[]; p99: (number | null)[] };
  backlog: { step: number; end: number; names: Record<string, number[]> };
  /** When the data begins (ms): nothing before it is drawn. */
  since: number;
}
/** A process running workers, from the store's process registry. */
export interface WorkerProcess {
  host: string;
  pid: number;
  concurrency: number;
  names: string[];
  version: string;
  startedAt: number;
  /** Its last heartbeat. */
  seenAt: number;
  heartbeatMs: number;
}
export interface Worker {
  owner: string;
  lastSeen: number;
  /** In claim order for a registered process. */
  running: { id: number; name: string; since: number; lockedUntil: number; progress: number | null }[];
  /** Absent for a lease owner with no registry row (an older litejobs, or a process gone before its leases ran out). */
  process?: WorkerProcess;
  /** With `process`: slots running a job; the rest of `running` waits for a slot (prefetch). */
  busy?: number;
}
export interface Workers {
  at: number;
  workers: Worker[];
}
export interface TickTransition {
  from: string | null;
  to: string;
  event: string;
  /** The guarded candidate taken when not the first: the edge `from:event:to#<candidate>`. */
  candidate?: number;
  name: string;
  count: number;
}
export interface Tick {
  at: number;
  counts: Record<string, number>;
  names: NameCounts;
  enqueued: number;
  transitions: TickTransition[];
  recent: { id: number; name: string; from: string | null; to: string; event: string; at: number }[];
  /** What is paused now, by any process: the page follows pauses made elsewhere. */
  paused: Paused;
}
export interface Schedule {
  name: string;
  cron: string;
  tz: string | null;
  missed: 'skip' | 'one' | 'all';
  lastRunAt: string | null;
  nextRunAt: string | null;
}
/** `GET /v1/limits`: queue.limits() with its dates as ISO text. */
export interface NameLimit {
  name: string;
  groupConcurrency: number | null;
  globalConcurrency: number | null;
  rateLimit: { max: number; perMs: number; perGroup: boolean } | null;
  running: number;
  tokensLeft: number | null;
  pausedUntil: string | null;
}
export interface GroupLimit {
  group: string;
  pending: number;
  running: number;
  /** The group's own setting; null: the definitions' groupConcurrency. */
  concurrency: number | null;
  pausedUntil: string | null;
}
export interface Limits {
  names: NameLimit[];
  groups: GroupLimit[];
}
/** `GET /v1/dashboard/overview`: per job name, the figures beside the counts. */
export interface OverviewFigures {
  counts: Record<string, number>;
  /** Attempts per minute over the last `windowMs`. */
  throughput: { completed: number; failed: number };
  /** Attempts in each minute of the hour, oldest first. */
  perMinute: { completed: number[]; failed: number[] };
  /** How long the jobs claimed in the window had been due, ms. */
  wait: { p50: number | null; p95: number | null };
}
export interface OverviewRow extends OverviewFigures {
  name: string;
  paused: boolean;
}
export interface Overview {
  at: number;
  windowMs: number;
  perMinute: { step: number; end: number };
  paused: Paused;
  rows: OverviewRow[];
  /** The names past the server's cap, together. */
  other: (OverviewFigures & { names: number }) | null;
}
/** `GET /v1/jobs/:id/logs`: a line the job's handler logged (ctx.log). */
export interface LogLineRow {
  seq: number;
  at: Time;
  attempt: number;
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}
export interface JobLogPage {
  lines: LogLineRow[];
  /** Earlier lines dropped: a job keeps its newest. */
  dropped: number;
  /** The `after` of the next page; null on the last one. */
  next: number | null;
}
