/**
 * messages: jobs that wait for the world (ctx.waitFor, queue.signal).
 *
 * - Message-to-resume, across processes, on SQLite and on PostgreSQL: a
 *   worker in a child process (children/message-worker.ts) runs jobs whose
 *   handler waits for a message on 'go'; this process enqueues one, waits
 *   for it to be parked in waiting-message, and signals it from a second
 *   queue on the same file or schema. A sample is the time from just before
 *   `signal()` to the handler holding the message in the child, both on the
 *   machine's monotonic clock.
 * - 10,000 waiting jobs, in one process (SQLite): how long they take to
 *   park, and what they cost once parked: the process's CPU over two idle
 *   seconds and its active timers (one for the earliest timeout, not one per
 *   job), and the heap.
 */
import type { ChildProcess } from 'node:child_process';
import { createQueue, defineJob, type Queue } from '../../src/index.js';
import { nextMessage } from '../lib/child.js';
import { onFreshTarget, withWorkerChild } from '../lib/worker-child.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import { wallNow } from '../lib/cross-process.js';
import { skipLine } from '../lib/peer-list.js';
import { alternate, medianOf, roundsFor, valueCheck, type Contender } from '../lib/rounds.js';
import { fmt, max, percentile, sleep } from '../lib/stats.js';
import type { Check, Metric, Scenario } from '../lib/types.js';
import { JOB, openLitejobs, type Target } from '../peers/litejobs.js';

const SQLITE = 'litejobs SQLite cross-process';
const PG = 'litejobs PostgreSQL cross-process';
const PARKED = 'litejobs SQLite, jobs waiting for a message';
const SAMPLE_TIMEOUT_MS = 10_000;
/** Between samples, as in the cancel scenario: each signal meets a worker at rest. */
const PAUSE_MS = 50;
const WAITING = 10_000;
/** The targets: a message resumes its job within these, p50, across processes. */
const P50_TARGET = { sqlite: 2, postgres: 5 };

const P50: Metric = { key: 'p50', label: 'resume p50', unit: 'ms', better: 'lower' };
const P99: Metric = { key: 'p99', label: 'resume p99', unit: 'ms', better: 'lower' };
const MAX: Metric = { key: 'max', label: 'resume max', unit: 'ms', better: 'lower' };
const PARK: Metric = { key: 'park', label: 'all parked after', unit: 'ms', better: 'lower' };
const IDLE_CPU: Metric = { key: 'idleCpu', label: 'CPU over 2 s parked', unit: 'ms', better: 'lower' };
const TIMERS: Metric = { key: 'timers', label: 'active timers parked', unit: '', better: 'lower' };
const HEAP: Metric = { key: 'heap', label: 'heap parked', unit: 'MB', better: 'lower' };

type Woke = { type: 'woke'; i: number; at: number };
const isWoke = (i: number) => (m: unknown): m is Woke => (m as Woke).type === 'woke' && (m as Woke).i === i;

async function parked(queue: Queue, id: number): Promise<void> {
  for (const end = Date.now() + SAMPLE_TIMEOUT_MS; Date.now() < end; ) {
    if ((await queue.getJob(id)).state === 'waiting-message') return;
    await sleep(1);
  }
  throw new Error(`job ${id} never parked`);
}

async function sample(child: ChildProcess, target: Target, n: number, what: string): Promise<number[]> {
  const { queue } = openLitejobs(target, {});
  const out: number[] = [];
  try {
    for (let s = 0; s < n; s++) {
      const { id } = await queue.enqueue(JOB, { i: s });
      await parked(queue, id);
      const woke = nextMessage(child, isWoke(s), SAMPLE_TIMEOUT_MS);
      const t0 = wallNow();
      await queue.signal(id, 'go', { i: s });
      const heard = await woke.catch((err: Error) => {
        throw new Error(`${what} sample ${s}: not woken (${err.message})`);
      });
      out.push(heard.at - t0);
      await sleep(PAUSE_MS);
    }
  } finally {
    await queue.close();
  }
  return out;
}

/** The worker child on a fresh file or schema, then the samples from a queue of this process on it. */
const crossProcess = (where: { dir: string } | { url: string }, n: number, what: string): Promise<number[]> =>
  onFreshTarget(where, (target) => withWorkerChild('message-worker.ts', [], target, (child) => sample(child, target, n, what)));

/** `count` jobs waiting for a message with a timeout each (an hour): the time they take to park, then what they cost parked. */
async function manyWaiting(dir: string, count: number): Promise<Record<string, number>> {
  const path = freshDbPath(dir, 'lj-parked');
  const wait = defineJob({ name: 'wait', handler: async (_: unknown, ctx) => ctx.waitFor('never', { timeout: '1h' }) });
  const queue = createQueue({ path, logger: false, concurrency: 16, jobs: [wait] });
  try {
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    for (let i = 0; i < count; i += 1000) await queue.enqueueMany(Array.from({ length: Math.min(1000, count - i) }, () => ({ name: 'wait', payload: null })));
    const t0 = performance.now();
    await queue.start();
    for (;;) {
      const stats = await queue.stats();
      if ((stats.byState['waiting-message'] ?? 0) >= count) break;
      await sleep(20);
    }
    const park = performance.now() - t0;
    await sleep(500); // the last moves' group commit and the claim loop at rest
    const cpu0 = process.cpuUsage();
    await sleep(2000);
    const cpu = process.cpuUsage(cpu0);
    const timers = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length - timersBefore;
    return { park, idleCpu: (cpu.user + cpu.system) / 1000, timers, heap: process.memoryUsage().heapUsed / 1e6 };
  } finally {
    await queue.close();
    removeDb(path);
  }
}

const figures = (s: number[]) => ({ p50: percentile(s, 50), p99: percentile(s, 99), max: max(s) });

function p50Check(rows: Parameters<typeof medianOf>[0], label: string, store: 'sqlite' | 'postgres'): Check {
  const v = medianOf(rows, label, 'p50');
  return valueCheck(v, (x) => x <= P50_TARGET[store], `${fmt(v)} ms`, `message-to-resume cross-process p50 ≤ ${P50_TARGET[store]} ms (${store === 'sqlite' ? 'SQLite' : 'PostgreSQL'})`);
}

export const messagesScenario: Scenario = {
  name: 'messages',
  title: 'Jobs waiting for messages: message-to-resume across processes, and 10,000 parked jobs',
  async run(ctx) {
    const started = Date.now();
    const n = ctx.quick ? 20 : 200;
    const waiting = ctx.quick ? 2000 : WAITING;
    const rounds = roundsFor(ctx, 1);
    const skipped: string[] = [];
    const pgDown = skipLine(ctx, 'litejobs PostgreSQL', 'postgres');
    const c: Contender[] = [{ label: SQLITE, system: 'litejobs', run: async () => figures(await crossProcess({ dir: ctx.tmpDir }, n, SQLITE)) }];
    if (pgDown) skipped.push(pgDown);
    else c.push({ label: PG, system: 'litejobs', run: async () => figures(await crossProcess({ url: ctx.servers.postgres.url }, n, PG)) });
    c.push({ label: PARKED, system: 'litejobs', run: async () => manyWaiting(ctx.tmpDir, waiting) });
    for (const line of skipped) ctx.progress(line);
    const rows = await alternate(ctx, 'messages', rounds, c);
    const timers = medianOf(rows, PARKED, 'timers');
    return {
      name: 'messages',
      title: this.title,
      description:
        "A worker in a child process runs jobs whose handler waits for a message on 'go' (ctx.waitFor); this process enqueues one, waits until it is parked in waiting-message, " +
        'and calls signal() from a second queue on the same SQLite file or PostgreSQL schema. A sample is the time from just before the signal() call to the handler holding the message in the child ' +
        "(the message stored, the job woken, claimed and run again from the top), both read on the machine's monotonic clock. " +
        `Then ${waiting.toLocaleString('en')} jobs waiting with an hour's timeout each, in one process: how long they take to park, and, parked, the CPU the process spends over two seconds, its active timers beside those before, and its heap.`,
      metrics: [P50, P99, MAX, PARK, IDLE_CPU, TIMERS, HEAP],
      config: { samples: `${n} per round and store`, pause: `${PAUSE_MS} ms between samples`, waiting: `${waiting} jobs, concurrency 16, SQLite` },
      rounds,
      rows,
      ratios: [],
      checks: [
        p50Check(rows, SQLITE, 'sqlite'),
        ...(pgDown ? [] : [p50Check(rows, PG, 'postgres')]),
        // The queue's own loops (claims, leases, retention, limits, the process's beat) hold about ten: one per job would be thousands.
        valueCheck(timers, (x) => x <= 20, `${fmt(timers)} timers`, `${waiting.toLocaleString('en')} waiting jobs hold no timer each (the queue's own loops only, ≤ 20)`),
      ],
      notes: [],
      skipped,
      durationMs: Date.now() - started,
    };
  },
};
