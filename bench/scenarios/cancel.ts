/**
 * cancel: cancel-to-abort latency across processes, on SQLite and on
 * PostgreSQL. A worker in a child process (children/cancel-worker.ts) runs
 * one job at a time whose handler waits for its ctx.signal; this process,
 * with a second queue on the same file or schema, cancels the job once the
 * handler has started, and the sample is the time from just before
 * `cancel(id)` to the abort in the child, both on the machine's monotonic
 * clock (wallNow).
 */
import type { ChildProcess } from 'node:child_process';
import type { Queue } from '../../src/index.js';
import { nextMessage } from '../lib/child.js';
import { onFreshTarget, withWorkerChild } from '../lib/worker-child.js';
import { wallNow } from '../lib/cross-process.js';
import { skipLine } from '../lib/peer-list.js';
import { alternate, medianOf, roundsFor, valueCheck, type Contender } from '../lib/rounds.js';
import { fmt, max, percentile, sleep } from '../lib/stats.js';
import type { Check, Metric, RowResult, Scenario } from '../lib/types.js';
import { JOB, openLitejobs, type Target } from '../peers/litejobs.js';

const SQLITE = 'litejobs SQLite cross-process';
const PG = 'litejobs PostgreSQL cross-process';
/** A renewal comes at half the lease, far past a sample's wait, so it cannot be what delivers an abort. */
const LEASE_MS = 60_000;
/**
 * A cancel whose abort has not come by then was missed by the change hint: it
 * counts as this long (a lower bound; left alone, it waits for the next
 * commit by another process or the lease renewal), and the worker is nudged.
 */
const MISS_MS = 500;
/** Past this a step of a sample (a start, an abort after nudging) fails the row. */
const SAMPLE_TIMEOUT_MS = 10_000;
/** Between nudges: commits of a job the worker does not handle, each a fresh change hint. */
const NUDGE_EVERY_MS = 20;
const NUDGE = 'nudge';
/**
 * Between samples: longer than the worker's gap between two reads of its
 * running jobs (moved-check.ts), so that each cancel meets a worker that has not
 * just read them, as a lone cancel does; back to back, a sample mostly
 * measures that gap.
 */
const PAUSE_MS = 50;
/** The target, on each store: a cancelled handler hears of it well within a user's patience. */
const P99_TARGET_MS = 250;

const P50: Metric = { key: 'p50', label: 'p50', unit: 'ms', better: 'lower' };
const P99: Metric = { key: 'p99', label: 'p99', unit: 'ms', better: 'lower' };
const MAX: Metric = { key: 'max', label: 'max', unit: 'ms', better: 'lower' };
const MISSED: Metric = { key: 'missed', label: `not heard within ${MISS_MS} ms`, unit: 'cancels', better: 'lower' };
const COMMIT: Metric = { key: 'commit', label: 'cancel() returned, p50', unit: 'ms', better: 'lower' };

type Started = { type: 'started'; i: number };
type Aborted = { type: 'aborted'; i: number; at: number; reason: string };
const isStarted = (i: number) => (m: unknown): m is Started => (m as Started).type === 'started' && (m as Started).i === i;
const isAborted = (i: number) => (m: unknown): m is Aborted => (m as Aborted).type === 'aborted' && (m as Aborted).i === i;

interface Samples {
  abort: number[];
  commit: number[];
  missed: number;
}

/** Commits a job nobody handles every NUDGE_EVERY_MS until `aborted` settles: each commit is a hint the worker may hear. */
async function nudgeUntil(queue: Queue, aborted: Promise<Aborted>): Promise<Aborted> {
  let settled = false;
  const done = aborted.finally(() => (settled = true));
  done.catch(() => {}); // awaited below
  while (!settled) {
    await queue.enqueue(NUDGE, { i: -1 });
    await Promise.race([done.catch(() => {}), sleep(NUDGE_EVERY_MS)]);
  }
  return done;
}

/** One job at a time: enqueue, wait for its handler to start, cancel it, wait for its abort. */
async function sample(child: ChildProcess, target: Target, n: number, what: string): Promise<Samples> {
  const { queue } = openLitejobs(target, {});
  const out: Samples = { abort: [], commit: [], missed: 0 };
  try {
    for (let s = 0; s < n; s++) {
      // Each listener goes on before the step that can trigger its message: the child may answer before our await returns.
      const started = nextMessage(child, isStarted(s), SAMPLE_TIMEOUT_MS);
      const job = await queue.enqueue(JOB, { i: s });
      await started;
      const aborted = nextMessage(child, isAborted(s), SAMPLE_TIMEOUT_MS + MISS_MS);
      aborted.catch(() => {}); // awaited below; a failing cancel must not leave it unhandled
      const t0 = wallNow();
      await queue.cancel(job.id);
      out.commit.push(wallNow() - t0);
      const heard = await Promise.race([aborted, sleep(Math.max(0, t0 + MISS_MS - wallNow())).then(() => undefined)]).catch((err: Error) => {
        throw new Error(`${what} sample ${s}: no abort (${err.message})`);
      });
      if (heard === undefined) {
        out.missed++;
        out.abort.push(MISS_MS);
        // Frees the worker's slot for the next samples.
        await nudgeUntil(queue, aborted).catch((err: Error) => {
          throw new Error(`${what} sample ${s}: no abort, even after nudges (${err.message})`);
        });
      } else {
        if (heard.reason !== 'cancel') throw new Error(`${what} sample ${s}: the handler aborted for "${heard.reason}", not for the cancel`);
        const ms = heard.at - t0;
        // An abort before the cancel: the two processes' clocks disagree, and every figure would be wrong.
        if (!(ms >= 0)) throw new Error(`${what} sample ${s}: ${ms} ms, an abort before its cancel`);
        out.abort.push(ms);
      }
      await sleep(PAUSE_MS);
    }
  } finally {
    await queue.close();
  }
  return out;
}

/** The worker child on a fresh file or schema, then the samples from a queue of this process on it. */
const crossProcess = (where: { dir: string } | { url: string }, n: number, what: string): Promise<Samples> =>
  onFreshTarget(where, (target) => withWorkerChild('cancel-worker.ts', [String(LEASE_MS)], target, (child) => sample(child, target, n, what)));

const figures = (s: Samples) => ({ p50: percentile(s.abort, 50), p99: percentile(s.abort, 99), max: max(s.abort), missed: s.missed, commit: percentile(s.commit, 50) });

function p99Check(rows: readonly RowResult[], label: string, store: string): Check {
  const v = medianOf(rows, label, 'p99');
  return valueCheck(v, (x) => x <= P99_TARGET_MS, `${fmt(v)} ms`, `cancel-to-abort cross-process p99 ≤ ${P99_TARGET_MS} ms (${store})`);
}

/** A line for each store whose cancels were missed by the change hint: the page must not show only the percentiles. */
function missedNotes(rows: readonly RowResult[], n: number): string[] {
  return rows.flatMap((r) => {
    const missed = r.metrics.missed ?? [];
    if (!missed.some((m) => m > 0)) return [];
    const byRound = missed.length > 1 ? ' (one figure per round)' : '';
    return [`${r.label}: ${missed.join(', ')} of ${n} cancels${byRound} were not heard within ${MISS_MS} ms; each counts as ${MISS_MS} ms in p50/p99/max.`];
  });
}

export const cancelScenario: Scenario = {
  name: 'cancel',
  title: 'Cancel-to-abort latency, across processes',
  async run(ctx) {
    const started = Date.now();
    const n = ctx.quick ? 20 : 200;
    const rounds = roundsFor(ctx, 1);
    const skipped: string[] = [];
    const pgDown = skipLine(ctx, 'litejobs PostgreSQL', 'postgres');
    const c: Contender[] = [{ label: SQLITE, system: 'litejobs', run: async () => figures(await crossProcess({ dir: ctx.tmpDir }, n, SQLITE)) }];
    if (pgDown) skipped.push(pgDown);
    else c.push({ label: PG, system: 'litejobs', run: async () => figures(await crossProcess({ url: ctx.servers.postgres.url }, n, PG)) });
    for (const line of skipped) ctx.progress(line);

    const rows = await alternate(ctx, 'cancel', rounds, c);
    return {
      name: 'cancel',
      title: this.title,
      description:
        'A worker in a child process runs one job at a time whose handler waits for its ctx.signal; this process enqueues the job, waits for the child to say the handler started, ' +
        'and calls cancel(id) from a second queue on the same SQLite file or PostgreSQL schema. A sample is the time from just before the cancel() call to the abort listener in the child, ' +
        "both read on the machine's monotonic clock (process.hrtime). p50/p99/max are over the samples of one round; the table shows their median over the rounds. " +
        `A cancel not heard within ${MISS_MS} ms counts as ${MISS_MS} ms (a lower bound: left alone it waits for another commit or the lease renewal) and is counted apart; ` +
        'the worker is then sent commits of a job it does not handle until it hears. ' +
        "'cancel() returned' is the p50 of the call itself, in this process: the rest of a sample is the change hint reaching the worker and its read of its running jobs.",
      metrics: [P50, P99, MAX, MISSED, COMMIT],
      config: {
        samples: `${n} per round and store`,
        pause: `${PAUSE_MS} ms between samples (after the abort), longer than the worker's least gap between two reads of its running jobs`,
        worker: `a child process: createQueue defaults (concurrency 4) with lease: ${LEASE_MS} ms, so that no lease renewal falls within a sample`,
        canceller: 'a queue of this process on the same file or schema, not started (it only enqueues and cancels)',
        [SQLITE]: 'the cancel reaches the worker through its watch on the WAL',
        [PG]: 'the cancel reaches the worker through LISTEN/NOTIFY on the same local server',
      },
      rounds,
      rows,
      ratios: [],
      checks: [p99Check(rows, SQLITE, 'SQLite'), ...(pgDown ? [] : [p99Check(rows, PG, 'PostgreSQL')])],
      notes: missedNotes(rows, n),
      skipped,
      durationMs: Date.now() - started,
    };
  },
};
