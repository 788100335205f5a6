/** The shapes a scenario hands back to the runner, and what it gets from it. */
import type { Servers } from './servers.js';

export interface Metric {
  key: string;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
}

/** One contender (a system at one setting): per-round values of each metric. */
export interface RowResult {
  label: string;
  system: string;
  metrics: Record<string, number[]>;
  /** Set when a round threw: the row keeps the rounds measured before. */
  error?: string;
  notes?: string[];
}

/** litejobs / peer, on the medians of one metric. */
export interface RatioResult {
  num: string;
  den: string;
  metric: string;
  value: number;
}

/** A performance target against what this run measured. `met: null` = not measurable here. */
export interface Check {
  target: string;
  measured: string;
  met: boolean | null;
}

export interface ScenarioResult {
  name: string;
  title: string;
  description: string;
  metrics: Metric[];
  config: Record<string, unknown>;
  rounds: number;
  rows: RowResult[];
  ratios: RatioResult[];
  checks: Check[];
  notes: string[];
  skipped: string[];
  durationMs: number;
  /** The metric drawn in the SVG chart (throughput scenarios only). */
  chartMetric?: string;
}

export interface RunContext {
  quick: boolean;
  /** --rounds N, if given: overrides each scenario's own default. */
  rounds: number | undefined;
  /** --only PATTERN, if given: the contenders whose label matches run, the others are left out. */
  only?: RegExp;
  /** A scratch folder for database files, removed at the end of the run. */
  tmpDir: string;
  servers: Servers;
  progress(message: string): void;
}

export interface Scenario {
  name: string;
  title: string;
  run(ctx: RunContext): Promise<ScenarioResult>;
}
