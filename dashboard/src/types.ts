/**
 * The shapes of the dashboard's JSON API, as the page reads them: the
 * server's own view types, imported as types only (nothing of the server
 * reaches the bundle), each as JSON delivers it (`Wire`).
 */
import type { MachineGraph, MachineGraphEdge, MachineGraphState } from '../../src/diagram/machine-graph.js';
import type { Box, DiagramLayout, PlacedBundle, Point } from '../../src/diagram/layout-types.js';
import type { Tick as TickView, TickTransition as TickTransitionView } from '../../src/live/change-feed.js';
import type { CountsView } from '../../src/live/live-counts.js';
import type { OverviewFigures as OverviewFiguresView, OverviewView } from '../../src/live/name-stats.js';
import type { SeriesView } from '../../src/live/time-series.js';
import type { ProcessView, WorkersView, WorkerView } from '../../src/live/workers.js';
import type { Job, StepView, Transition } from '../../src/engine/core/job-view.js';
import type { JobLogs } from '../../src/engine/actions/job-logs.js';
import type { GroupView, LimitsView, NameLimitView } from '../../src/engine/actions/limits-view.js';
import type { ScheduleView } from '../../src/engine/core/schedules.js';
import type { PausedView } from '../../src/store/paused.js';

/** A server type as its JSON arrives: each Date is ISO text (JSON.stringify calls its toJSON). */
export type Wire<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

export type { Box, DiagramLayout, MachineGraph, PlacedBundle, Point };
export type GraphState = MachineGraphState;
export type GraphEdge = MachineGraphEdge;

/** One chart (src/live/graphs.ts, whose layout code stays out of the page's type check). */
export interface DashboardGraph {
  id: string;
  /** null: every job name no other graph claims. */
  names: string[] | null;
  graph: MachineGraph;
  /** null where the server could not lay the chart out in time: the page lists the states instead. */
  layouts: { RIGHT: DiagramLayout | null; DOWN: DiagramLayout | null };
}
export type Paused = PausedView;
/** `GET /v1/dashboard`. */
export interface DashboardConfig {
  readOnly: boolean;
  graphs: DashboardGraph[];
  names: string[];
  paused: Paused;
}
/** Jobs per state, then per name. */
export type NameCounts = Record<string, Record<string, number>>;
/** `GET /v1/dashboard/counts`. */
export type Counts = CountsView & { at: number; paused: Paused };
/** Times arrive as ms since the epoch or as ISO text: the page accepts both. */
export type Time = number | string;
/** A page of one state's jobs (`GET /v1/dashboard/jobs`), as the server types it. */
export type { JobSummary } from '../../src/store/contract/reads.js';
export type { BrowsePage as JobPage } from '../../src/store/contract/reads.js';

export type JobFull = Wire<Job>;
export type HistoryRow = Wire<Transition>;
/** A completed durable step (ctx.step) or sleep (ctx.sleep) of a job. */
export type StepRow = Wire<StepView>;
/** `GET /v1/jobs/:id?history=1…`. */
export interface JobDetail {
  job: JobFull;
  history: HistoryRow[];
  /** Absent from a server without durable steps. */
  steps?: StepRow[];
  /** The events a caller may send the job now, read off its machine (absent from an older server). */
  events?: string[];
}
export type Series = SeriesView;
/** A process running workers, from the store's process registry. */
export type WorkerProcess = ProcessView;
export type Worker = WorkerView;
export type Workers = WorkersView;
export type TickTransition = TickTransitionView;
export type Tick = TickView;
export type Schedule = Wire<ScheduleView>;
/** `GET /v1/limits`: queue.limits() as JSON. */
export type NameLimit = Wire<NameLimitView>;
export type GroupLimit = Wire<GroupView>;
export type Limits = Wire<LimitsView>;
/** `GET /v1/dashboard/overview`: per job name, the figures beside the counts. */
export type OverviewFigures = OverviewFiguresView;
export type Overview = OverviewView & { seeding?: true };
/** `GET /v1/jobs/:id/logs`. */
export type JobLogPage = Wire<JobLogs>;
/** A line the job's handler logged (ctx.log). */
export type LogLineRow = JobLogPage['lines'][number];
