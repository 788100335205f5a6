/**
 * Runs contenders alternately (round 1: A, B, C; round 2: A, B, C; …) so that
 * drift on a shared machine hits every system alike, and computes the
 * litejobs/peer ratios on the medians.
 */
import { median } from './stats.js';
import type { Check, Metric, RatioResult, RowResult, RunContext } from './types.js';

export interface Contender {
  label: string;
  system: string;
  /** One round on fresh state; returns this round's value of each metric. */
  run(round: number): Promise<Record<string, number>>;
  notes?: string[];
  /** Take part in the first N rounds only (a contender too slow to repeat). */
  maxRounds?: number;
}

export function roundsFor(ctx: RunContext, full: number, quick = 1): number {
  return ctx.rounds ?? (ctx.quick ? quick : full);
}

/** What a scenario's config says when its contenders run a warm-up round. */
export const WARMUP_NOTE = 'one untimed round per contender before the timed rounds (JIT compilation and caches), except contenders that run one round only';

export async function alternate(
  ctx: RunContext,
  scenario: string,
  rounds: number,
  contenders: readonly Contender[],
  options: { warmup?: boolean; rotate?: boolean } = {},
): Promise<RowResult[]> {
  if (ctx.only) contenders = contenders.filter((c) => ctx.only!.test(c.label));
  const rows: RowResult[] = contenders.map((c) => ({ label: c.label, system: c.system, metrics: {}, ...(c.notes ? { notes: c.notes } : {}) }));
  // Each round starts a fresh queue, so without this the first rounds of every
  // in-process system measure its JIT warming up, not its steady state.
  if (options.warmup && !ctx.quick) {
    for (let i = 0; i < contenders.length; i++) {
      const c = contenders[i]!;
      if (c.maxRounds === 1) continue;
      try {
        await c.run(0);
        ctx.progress(`${scenario} warm-up ${c.label}`);
      } catch (err) {
        rows[i]!.error = (err as Error).stack ?? String(err);
        ctx.progress(`${scenario} warm-up ${c.label}: ERROR ${(err as Error).message}`);
      }
    }
  }
  for (let r = 1; r <= rounds; r++) {
    for (let j = 0; j < contenders.length; j++) {
      // rotate: each round starts one contender further on, so that none always runs first (after the last
      // contender's garbage) or right after the same neighbour: measured, two copies of one build differed by 0.7× without it.
      const i = options.rotate ? (j + r - 1) % contenders.length : j;
      const c = contenders[i]!;
      const row = rows[i]!;
      if (row.error) continue; // a contender that threw is not retried
      if (c.maxRounds !== undefined && r > c.maxRounds) continue;
      const started = Date.now();
      try {
        const values = await c.run(r);
        for (const [k, v] of Object.entries(values)) {
          row.metrics[k] ??= [];
          row.metrics[k].push(v);
        }
        const shown = Object.entries(values).map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(2)}`).join(' ');
        ctx.progress(`${scenario} r${r}/${rounds} ${c.label}: ${shown} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      } catch (err) {
        row.error = (err as Error).stack ?? String(err);
        ctx.progress(`${scenario} r${r}/${rounds} ${c.label}: ERROR ${(err as Error).message}`);
      }
    }
  }
  return rows;
}

export function medianOf(rows: readonly RowResult[], label: string, metric: string): number {
  const row = rows.find((r) => r.label === label);
  return row ? median(row.metrics[metric] ?? []) : Number.NaN;
}

/** litejobs/peer for each pair whose rows both have values. */
export function ratios(rows: readonly RowResult[], metric: string, pairs: ReadonlyArray<[string, string]>): RatioResult[] {
  const out: RatioResult[] = [];
  for (const [num, den] of pairs) {
    const a = medianOf(rows, num, metric);
    const b = medianOf(rows, den, metric);
    // A ratio of a non-positive figure (e.g. RSS growth within noise) means nothing: leave it out.
    if (Number.isFinite(a) && Number.isFinite(b) && a > 0 && b > 0) out.push({ num, den, metric, value: a / b });
  }
  return out;
}

/** A "≥ k× peer" target from the issue, on the ratio of medians (met: null if either side is missing). */
export function ratioCheck(rows: readonly RowResult[], metric: string, num: string, den: string, atLeast: number, target: string): Check {
  const a = medianOf(rows, num, metric);
  const b = medianOf(rows, den, metric);
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return { target, measured: 'not measured', met: null };
  const r = a / b;
  return { target, measured: `${r.toFixed(2)}×`, met: r >= atLeast };
}

export function valueCheck(value: number, test: (v: number) => boolean, shown: string, target: string): Check {
  if (!Number.isFinite(value)) return { target, measured: 'not measured', met: null };
  return { target, measured: shown, met: test(value) };
}

export const throughput: Metric = { key: 'rate', label: 'throughput', unit: 'jobs/s', better: 'higher' };
