/**
 * limits: the drain of the drain scenario (no-op jobs, concurrency 16) under
 * concurrency groups and rate limits, next to the same drain without them in
 * the same rounds; and what a claim costs as the number of groups grows.
 */
import { alternate, WARMUP_NOTE, ratioCheck, ratios, roundsFor, throughput, type Contender } from '../lib/rounds.js';
import type { Metric, Scenario } from '../lib/types.js';
import { limitsBackends, limitedDrain, type LimitedDrainOptions } from './limits-drain.js';

const C = 16;
/** The groups of the enqueue-order contender and of the target. */
const GROUPS = 1000;
/** The rate limit's max over the plain drain's rate measured just before. */
const RATE_OVER_PLAIN = 1.2;

const claimUs: Metric = { key: 'claimUs', label: 'claim time per job', unit: 'µs', better: 'lower' };
const perClaim: Metric = { key: 'perClaim', label: 'jobs per claim', unit: 'jobs', better: 'higher' };

const groupsLabel = (groups: number) => `${groups.toLocaleString('en-US')} groups c1`;

/** The rate a drain of `n` jobs cannot beat under `max` per `perMs`, as a line: unbounded when one bucket holds them all. */
function ceiling(n: number, max: number, perMs: number): string {
  const windows = Math.floor((n - 1) / max);
  return windows === 0 ? 'the bucket holds every job' : `ceiling ${Math.round(n / ((windows * perMs) / 1000)).toLocaleString('en-US')} jobs/s`;
}

export const limitsScenario: Scenario = {
  name: 'limits',
  title: 'Drain under concurrency groups and rate limits, concurrency 16',
  async run(ctx) {
    const started = Date.now();
    const q = ctx.quick;
    const n = q ? 2000 : 50_000;
    const sweep = q ? [10, GROUPS] : [10, 100, GROUPS, 10_000];
    const rounds = roundsFor(ctx, 3);
    const timeoutMs = q ? 30_000 : 240_000;
    const slowTimeoutMs = q ? timeoutMs : 600_000;
    const notes = new Set<string>();
    /** Each rate-limited row's max, round by round (set from that round's plain rate). */
    const maxes = new Map<string, string[]>();
    const { backends, skipped } = limitsBackends(ctx);

    const contenders: Contender[] = [];
    const pairs: Array<[string, string]> = [];
    /** Each store's plain, grouped and rate-limited (per 1 s) rows: the targets compare them. */
    const targets: Array<{ store: string; plain: string; grouped: string; interleaved: string; rate: string }> = [];
    for (const b of backends) {
      const plain = `${b.label} plain`;
      const rate1s = `${b.label} rate limit ${RATE_OVER_PLAIN}× plain per 1 s`;
      const rate100 = `${b.label} rate limit ${RATE_OVER_PLAIN}× plain per 100 ms`;
      /** The plain drain's latest rate on this backend: the rate limits are set from it. */
      let plainRate: number | undefined;
      const drain = (label: string, o: LimitedDrainOptions, timeout = timeoutMs): Contender => ({
        label,
        system: 'litejobs',
        async run() {
          const out = await limitedDrain(b, n, o, C, timeout);
          for (const line of out.notes) notes.add(`${label}: ${line}`);
          if (label === plain) plainRate = out.metrics.rate;
          return out.metrics;
        },
      });
      const rateLimited = (label: string, perMs: number): Contender => ({
        label,
        system: 'litejobs',
        async run() {
          // --only may leave the plain row out: measure its rate first, untimed.
          plainRate ??= (await limitedDrain(b, n, {}, C, timeoutMs)).metrics.rate;
          const max = Math.max(1, Math.round((RATE_OVER_PLAIN * plainRate * perMs) / 1000));
          const out = await limitedDrain(b, n, { limits: { rateLimit: { max, per: perMs } } }, C, timeoutMs);
          for (const line of out.notes) notes.add(`${label}: ${line}`);
          maxes.set(label, [...(maxes.get(label) ?? []), `${max} (${ceiling(n, max, perMs)})`]);
          return out.metrics;
        },
      });
      contenders.push(drain(plain, {}), rateLimited(rate1s, 1000), rateLimited(rate100, 100));
      for (const groups of sweep) {
        const row = drain(`${b.label} ${groupsLabel(groups)}`, { groups, limits: { groupConcurrency: 1 } }, slowTimeoutMs);
        // Few groups hold few jobs running at once: minutes per full-size drain, so one round (no warm-up either).
        contenders.push(groups < GROUPS && !q ? { ...row, maxRounds: 1 } : row);
      }
      const interleaved = `${b.label} ${groupsLabel(GROUPS)}, interleaved`;
      contenders.push(drain(interleaved, { groups: GROUPS, interleaved: true, limits: { groupConcurrency: 1 } }, slowTimeoutMs));
      pairs.push([rate1s, plain], [rate100, plain], ...sweep.map((g): [string, string] => [`${b.label} ${groupsLabel(g)}`, plain]), [interleaved, plain]);
      targets.push({ store: b.label, plain, grouped: `${b.label} ${groupsLabel(GROUPS)}`, interleaved, rate: rate1s });
    }
    for (const line of skipped) ctx.progress(line);

    const rows = await alternate(ctx, 'limits', rounds, contenders, { warmup: true });
    return {
      name: 'limits',
      title: this.title,
      description:
        `${n.toLocaleString('en-US')} no-op jobs enqueued first (untimed), then drained at concurrency ${C} with createQueue defaults, timed as in the drain scenario. ` +
        `"plain": no limits (the drain scenario's "defaults"). "N groups c1": the jobs spread evenly over N groups, enqueued group after group ` +
        `(every job of the first group, then the second's, …: the hardest order for a FIFO, and each claim's jobs lie far apart in the file), the job defined with groupConcurrency: 1; ` +
        '"interleaved": job i in group i mod N instead, as jobs arrive from many customers at once. ' +
        `"rate limit": rateLimit { max, per } with max set to ${RATE_OVER_PLAIN}× the plain drain's rate of the same round, per 1 s and per 100 ms. ` +
        'Claim time per job: the time spent in the store\'s claim (the transaction, on SQLite) over the jobs it leased.',
      metrics: [throughput, claimUs, perClaim],
      config: {
        warmup: WARMUP_NOTE,
        jobs: n,
        concurrency: C,
        groups: sweep,
        plain: 'createQueue defaults, concurrency 16 (history on, completed jobs kept, prefetch 4 × concurrency)',
        'rate limit max': maxes.size > 0 ? [...maxes].map(([label, m]) => `${label}: ${m.join(', ')}${q ? '' : ' (the first in the warm-up round)'}`).join('; ') : 'not measured',
        'rate limit ceiling': `the fastest a drain of ${n.toLocaleString('en-US')} jobs can go under the limit: a bucket starts full, so the first max jobs go at once and each further max wait for a window`,
        'claim time': "the store's claim wrapped (through the queue's internals) before start(); every claim counted, empty ones too",
      },
      rounds,
      rows,
      ratios: ratios(rows, 'rate', pairs),
      checks: targets.flatMap((t) => [
        ratioCheck(rows, 'rate', t.grouped, t.plain, 0.6, `${t.store}: drain with ${GROUPS.toLocaleString('en-US')} groups of concurrency 1, enqueued group after group, ≥ 0.6× the plain drain`),
        ratioCheck(rows, 'rate', t.interleaved, t.plain, 0.5, `${t.store}: drain with ${GROUPS.toLocaleString('en-US')} groups of concurrency 1, enqueued interleaved, ≥ 50% of the plain drain`),
        ratioCheck(rows, 'rate', t.rate, t.plain, 0.8, `${t.store}: drain under a rate limit of ${RATE_OVER_PLAIN}× its rate per 1 s (one that does not bind) ≥ 0.8× the plain drain`),
      ]),
      notes: [
        ...notes,
        `A bucket of ${RATE_OVER_PLAIN}× the plain rate per 1 s holds most of a drain that lasts about a second: that row mostly measures the rate limit's bookkeeping, the per-100 ms row a limit that binds over the whole drain.`,
        ...(q ? [`--quick: ${n.toLocaleString('en-US')} jobs, groups ${sweep.join(', ')}.`] : [`The drains with fewer than ${GROUPS.toLocaleString('en-US')} groups run one round only (minutes each at full size).`]),
      ],
      skipped,
      durationMs: Date.now() - started,
      chartMetric: 'rate',
    };
  },
};
