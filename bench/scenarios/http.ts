/**
 * http: acknowledged `POST /v1/hooks/:name` requests per second. Each server
 * runs in a process of its own (bench/children/http-server.ts); autocannon
 * drives it from this process over loopback. Every round starts a fresh
 * server (a fresh file, a fresh BullMQ queue), warms it up on another hook
 * name, then measures.
 *
 * BENCH_HTTP_CPU_PROF=<dir> runs the litejobs servers with `node --cpu-prof`
 * and writes their profiles there.
 */
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { exited, forkChild, nextMessage } from '../lib/child.js';
import { runLoad, storedProblems } from '../lib/http-load.js';
import { skipLine } from '../lib/peer-list.js';
import { alternate, ratioCheck, ratios, roundsFor, type Contender } from '../lib/rounds.js';
import { freshDbPath, removeDb, uniqueName } from '../lib/tmp.js';
import type { Metric, RowResult, RunContext, Scenario } from '../lib/types.js';
import { openBull, removeBull } from '../peers/bullmq.js';

const RATE: Metric = { key: 'rate', label: 'throughput', unit: 'req/s', better: 'higher' };
const P50: Metric = { key: 'p50', label: 'p50', unit: 'ms', better: 'lower' };
const P99: Metric = { key: 'p99', label: 'p99', unit: 'ms', better: 'lower' };

const CONNECTIONS = 64;
const PIPELINING = 1;
const HOOK = 'stripe';
const WARMUP_HOOK = 'warmup';

/** A provider's event as webhooks deliver it: 362 bytes of JSON. */
export const HOOK_BODY = JSON.stringify({
  id: 'evt_1NG8Du2eZvKYlo2CUI79vXWy',
  object: 'event',
  api_version: '2023-10-16',
  created: 1686089970,
  type: 'invoice.paid',
  livemode: false,
  pending_webhooks: 1,
  request: { id: 'req_8dUbPQ4pWq3Kfh', idempotency_key: null },
  data: { object: { id: 'in_1NG8Ct2eZvKYlo2C9XdwyT5h', customer: 'cus_9s6XKzkNRiz8i3', amount_paid: 4200, currency: 'usd', status: 'paid' } },
});

type Variant = 'floor' | 'litejobs-normal' | 'litejobs-full' | 'bullmq';
type Ready = { type: 'ready'; url: string };
const isReady = (m: unknown): m is Ready => (m as { type?: string }).type === 'ready';

interface Timing {
  warmupSeconds: number;
  seconds: number;
}

/** Jobs of hook `name` in a litejobs file (read after its server has closed). */
function storedJobs(path: string, name: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM jobs WHERE name = ?').get(name) as { n: number }).n;
  } finally {
    db.close();
  }
}

/** One round of one variant: a fresh server process, a warm-up, the measured run, the checks. */
async function measure(ctx: RunContext, variant: Variant, t: Timing): Promise<Record<string, number>> {
  const litejobs = variant.startsWith('litejobs');
  const target = litejobs ? freshDbPath(ctx.tmpDir, `http-${variant}`) : variant === 'bullmq' ? uniqueName('q') : '';
  const profileDir = process.env.BENCH_HTTP_CPU_PROF;
  const flags = litejobs && profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`, `--cpu-prof-name=${variant}-${Date.now()}.cpuprofile`] : [];
  const child = forkChild('http-server.ts', [variant, target], flags);
  try {
    const { url } = await nextMessage(child, isReady, 30_000);
    const base = { body: HOOK_BODY, connections: CONNECTIONS, pipelining: PIPELINING };
    // JIT and caches first; its jobs are named apart, so they are not counted below.
    const warm = await runLoad({ ...base, url: `${url}/v1/hooks/${WARMUP_HOOK}`, seconds: t.warmupSeconds });
    if (warm.problems.length > 0) throw new Error(`${variant} warm-up: ${warm.problems.join('; ')}`);
    const load = await runLoad({ ...base, url: `${url}/v1/hooks/${HOOK}`, seconds: t.seconds });
    child.send({ type: 'exit' });
    const code = await exited(child, 30_000);
    if (code !== 0) throw new Error(`${variant} server exited with code ${code}`);
    const problems = [...load.problems];
    let unread: number | undefined;
    if (litejobs) {
      const stored = storedJobs(target, HOOK);
      problems.push(...storedProblems(stored, load));
      unread = stored - load.acknowledged;
    }
    if (problems.length > 0) throw new Error(`${variant}: ${problems.join('; ')}`);
    return { rate: load.rate, p50: load.p50, p99: load.p99, acknowledged: load.acknowledged, ...(unread === undefined ? {} : { storedUnread: unread }) };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      if (child.connected) child.send({ type: 'exit' });
      await exited(child, 10_000);
    }
    if (litejobs) removeDb(target);
    if (variant === 'bullmq') await removeBull(openBull(target));
  }
}

/**
 * A row that failed in any round is invalid as a whole: drop the figures of
 * the rounds before, so no ratio or target is computed from them.
 */
export function invalidateFailed(rows: RowResult[]): string[] {
  const notes: string[] = [];
  for (const row of rows) {
    if (!row.error) continue;
    row.metrics = {};
    notes.push(`${row.label} is invalid in this run: ${row.error.split('\n')[0]}`);
  }
  return notes;
}

export const httpScenario: Scenario = {
  name: 'http',
  title: 'HTTP webhook ingestion (POST /v1/hooks/:name)',
  async run(ctx) {
    const started = Date.now();
    const timing: Timing = { warmupSeconds: 1, seconds: ctx.quick ? 2 : 5 };
    const rounds = roundsFor(ctx, 3);
    const skipped: string[] = [];
    const variants: Array<[Variant, string]> = [
      ['floor', 'fastify'],
      ['litejobs-normal', 'litejobs'],
      ['litejobs-full', 'litejobs'],
    ];
    const redisDown = skipLine(ctx, 'bullmq', 'redis');
    if (redisDown) {
      skipped.push(redisDown);
      ctx.progress(redisDown);
    } else variants.push(['bullmq', 'bullmq']);
    const contenders: Contender[] = variants.map(([label, system]) => ({ label, system, run: () => measure(ctx, label, timing) }));

    const rows = await alternate(ctx, 'http', rounds, contenders);
    const invalid = invalidateFailed(rows);
    const pairs: Array<[string, string]> = [
      ['litejobs-normal', 'floor'],
      ['litejobs-full', 'floor'],
      ['litejobs-normal', 'bullmq'],
      ['litejobs-full', 'bullmq'],
    ];
    return {
      name: 'http',
      title: this.title,
      description:
        `autocannon POSTs a ${HOOK_BODY.length}-byte JSON event to \`/v1/hooks/${HOOK}\` on ${CONNECTIONS} keep-alive connections (pipelining ${PIPELINING}) for ${timing.seconds} s; ` +
        'throughput counts 2xx answers only, and any other status or a socket error invalidates the contender. ' +
        'Each server runs in a process of its own, started fresh every round; autocannon runs in the harness process; both on loopback.',
      metrics: [RATE, P50, P99],
      config: {
        load: `autocannon 8, ${CONNECTIONS} connections, pipelining ${PIPELINING}, ${timing.seconds} s per measurement after a ${timing.warmupSeconds} s warm-up on another hook name (not counted), no Idempotency-Key`,
        latency: 'autocannon percentiles of 2xx answers over one measurement, whole milliseconds; the table shows their median over the rounds',
        floor: 'bare fastify 5 (logger off), the same route: parses the JSON body, answers 201 { id, created: true }, stores nothing',
        litejobs: "startServer({ queue }) from litejobs/http (metrics on, the default), a queue on a fresh file at durability 'normal' or 'full', no workers; answers 201 after the commit",
        bullmq: 'the floor\'s route awaiting BullMQ queue.add(name, body) before answering 201; a fresh queue per round, removed afterwards',
        check: 'after each litejobs measurement the file holds every acknowledged job, plus at most the requests left unanswered when the load stopped (storedUnread in the results JSON)',
      },
      rounds,
      rows,
      ratios: ratios(rows, 'rate', pairs),
      checks: [
        ratioCheck(rows, 'rate', 'litejobs-normal', 'floor', 0.9, "http hooks, durability 'normal' ≥ 0.9× the bare fastify floor"),
        ratioCheck(rows, 'rate', 'litejobs-full', 'floor', 0.9, "http hooks, durability 'full' ≥ 0.9× the bare fastify floor"),
        ratioCheck(rows, 'rate', 'litejobs-normal', 'bullmq', 2, "http hooks, durability 'normal' ≥ 2× BullMQ behind fastify"),
        ratioCheck(rows, 'rate', 'litejobs-full', 'bullmq', 2, "http hooks, durability 'full' ≥ 2× BullMQ behind fastify"),
      ],
      notes: invalid,
      skipped,
      durationMs: Date.now() - started,
      chartMetric: 'rate',
    };
  },
};
