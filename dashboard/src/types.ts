/** The shapes of the dashboard's JSON API, as the page reads them. */

export interface GraphState {
  id: string;
  final: boolean;
  delayed: boolean;
}
export interface GraphEdge {
  id: string;
  from: string;
  to: string;
  event: string;
  label: string;
  guard?: string;
  else?: boolean;
}
export interface MachineGraph {
  initial: string;
  states: GraphState[];
  edges: GraphEdge[];
}
export interface Point {
  x: number;
  y: number;
}
export interface Box extends Point {
  width: number;
  height: number;
}
export interface DiagramLayout {
  width: number;
  height: number;
  states: (Box & { state: GraphState })[];
  edges: { edge: GraphEdge; points: Point[]; label: Box }[];
  initial: { center: Point; points: Point[] };
}
export interface DashboardGraph {
  id: string;
  /** null: every job name no other graph claims. */
  names: string[] | null;
  graph: MachineGraph;
  layouts: { RIGHT: DiagramLayout; DOWN: DiagramLayout };
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
export interface JobSummary {
  id: number;
  name: string;
  state: string;
  attempts: number;
  priority: number;
  runAt: Time;
  createdAt: Time;
  updatedAt: Time;
  leaseOwner: string | null;
  progress: number | null;
  error: string | null;
  payload: string;
}
export interface JobPage {
  jobs: JobSummary[];
  next: string | null;
  scanned: number;
}
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
export interface JobDetail {
  job: JobFull;
  history: HistoryRow[];
}
export interface Series {
  throughput: { step: number; end: number; completed: number[]; failed: number[] };
  latency: { step: number; end: number; p50: (number | null)[]; p99: (number | null)[] };
  backlog: { step: number; end: number; names: Record<string, number[]> };
}
export interface Worker {
  owner: string;
  lastSeen: number;
  running: { id: number; name: string; since: number; lockedUntil: number; progress: number | null }[];
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
