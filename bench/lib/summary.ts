/** Per-row figures (median, min–max) and the plain-text summary printed at the end of a run. */
import { fmt, fmtRatio, max, median, min } from './stats.js';
import type { Metric, RowResult, ScenarioResult } from './types.js';

export interface Figure {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function figure(row: RowResult | undefined, metric: string): Figure {
  const v = row?.metrics[metric] ?? [];
  return { median: median(v), min: min(v), max: max(v), n: v.length };
}

export function metricOf(s: ScenarioResult, key: string): Metric {
  return s.metrics.find((m) => m.key === key) ?? { key, label: key, unit: '', better: 'higher' };
}

export interface SummaryLine {
  scenario: string;
  litejobs: string;
  peer: string;
  ratio: string;
}

export function summaryLines(scenarios: readonly ScenarioResult[]): SummaryLine[] {
  const out: SummaryLine[] = [];
  for (const s of scenarios) {
    for (const r of s.ratios) {
      if (!(r.value > 0)) continue;
      const m = metricOf(s, r.metric);
      const a = figure(s.rows.find((x) => x.label === r.num), r.metric).median;
      const b = figure(s.rows.find((x) => x.label === r.den), r.metric).median;
      const what = s.metrics.length > 1 ? ` ${m.label}` : '';
      out.push({
        scenario: `${s.name}${what}`,
        litejobs: `${r.num}: ${fmt(a)} ${m.unit}`,
        peer: `${r.den}: ${fmt(b)} ${m.unit}`,
        ratio: `${fmtRatio(r.value)}${m.better === 'lower' ? ' (lower is better)' : ''}`,
      });
    }
  }
  return out;
}

function pad(s: string, n: number): string {
  return s + ' '.repeat(Math.max(0, n - s.length));
}

/** A fixed-width table for the terminal. */
export function textTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => pad(c, widths[i]!)).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function printSummary(scenarios: readonly ScenarioResult[]): string {
  const lines = summaryLines(scenarios);
  const parts = [textTable(['scenario', 'litejobs', 'peer', 'litejobs/peer'], lines.map((l) => [l.scenario, l.litejobs, l.peer, l.ratio]))];
  const checks = scenarios.flatMap((s) => s.checks);
  if (checks.length > 0) {
    parts.push('', textTable(['target', 'measured', 'met'], checks.map((c) => [c.target, c.measured, c.met === null ? 'n/a' : c.met ? 'yes' : 'NO'])));
  }
  const skipped = scenarios.flatMap((s) => s.skipped);
  if (skipped.length > 0) parts.push('', ...[...new Set(skipped)]);
  const errors = scenarios.flatMap((s) => s.rows.filter((r) => r.error).map((r) => `${s.name} / ${r.label}: ${r.error!.split('\n')[0]}`));
  if (errors.length > 0) parts.push('', 'ERRORS:', ...errors);
  return parts.join('\n');
}
