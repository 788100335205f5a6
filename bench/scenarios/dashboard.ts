/**
 * dashboard: what a person at the dashboard waits for on a big file — the
 * live counts and a page of 100 jobs in each state — on a file of 1M jobs
 * (100k in --quick) spread over every state. The server runs in a process of
 * its own; this process sends one request at a time (one person clicking),
 * on one keep-alive connection, and times each answer.
 */
import Database from 'better-sqlite3';
import { request, Agent } from 'undici';
import { exited, forkChild, nextMessage } from '../lib/child.js';
import { roundsFor, valueCheck } from '../lib/rounds.js';
import { median, percentile } from '../lib/stats.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import type { Check, Metric, RowResult, Scenario } from '../lib/types.js';
import { openLitejobs } from '../peers/litejobs.js';

const P50: Metric = { key: 'p50', label: 'p50', unit: 'ms', better: 'lower' };
const P99: Metric = { key: 'p99', label: 'p99', unit: 'ms', better: 'lower' };
const TARGET_MS = 50;
const NAMES = ['email', 'report', 'webhook'];

/** Shares of the file's jobs per state (the rest completed), as a busy queue a week old might hold. */
const SHARES: Array<[string, number]> = [
  ['pending', 0.05],
  ['dead', 0.04],
  ['cancelled', 0.009],
  ['failed', 0.0009],
  ['processing', 0.0001],
];

/** A litejobs file of `total` jobs, states interleaved along the ids (as time mixes them). */
async function build(path: string, total: number): Promise<Record<string, number>> {
  removeDb(path);
  const { queue } = openLitejobs(path, {});
  await queue.close();
  const db = new Database(path);
  const counts: Record<string, number> = {};
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const insert = db.prepare(
      `INSERT INTO jobs (name, state, payload, priority, run_at, attempts, last_error, created_at, updated_at, lease_owner, lease_token, locked_until)
       VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const start = Date.now() - 7 * 24 * 3600_000;
    const stateOf = (i: number): string => {
      // A fixed, spread-out pattern: state k takes every (1/share)-th id, offset by k.
      let k = 0;
      for (const [state, share] of SHARES) {
        if ((i + k) % Math.round(1 / share) === 0) return state;
        k++;
      }
      return 'completed';
    };
    const chunk = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const state = stateOf(i);
        counts[state] = (counts[state] ?? 0) + 1;
        const at = start + i * 600;
        const leased = state === 'processing';
        insert.run(
          NAMES[i % 3],
          state,
          JSON.stringify({ customer: i % 5000, order: i }),
          at,
          state === 'dead' ? 5 : 1,
          state === 'dead' ? '{"name":"Error","message":"card declined"}' : null,
          at,
          at + 50,
          leased ? 'host:1:bench' : null,
          leased ? 'token' : null,
          leased ? Date.now() + 60_000 : null,
        );
      }
    });
    for (let i = 0; i < total; i += 50_000) chunk.immediate(i, Math.min(total, i + 50_000));
    db.prepare("UPDATE queue_meta SET value = (SELECT max(id) FROM jobs) WHERE key = 'indexed_upto'").run();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return counts;
}

interface Probe {
  label: string;
  /** The path to GET; may depend on earlier answers (a cursor deep in a state). */
  path: () => string;
}

export const dashboardScenario: Scenario = {
  name: 'dashboard',
  title: 'Dashboard reads on a big file (counts, a page of 100 jobs per state)',
  async run(ctx) {
    const started = Date.now();
    const total = ctx.quick ? 100_000 : 1_000_000;
    const requests = ctx.quick ? 50 : 300;
    const rounds = roundsFor(ctx, 3);
    const path = freshDbPath(ctx.tmpDir, 'dashboard');
    ctx.progress(`dashboard: building a file of ${total} jobs`);
    const counts = await build(path, total);
    const rows = new Map<string, RowResult>();
    const notes: string[] = [];
    try {
      for (let round = 0; round < rounds; round++) {
        const child = forkChild('dashboard-server.ts', [path]);
        const agent = new Agent({ connections: 1 });
        // biome-ignore lint/suspicious/noExplicitAny: each endpoint answers its own shape
        const get = async (p: string): Promise<{ ms: number; body: any }> => {
          const t = performance.now();
          const res = await request(url + p, { dispatcher: agent });
          const body = await res.body.json();
          const ms = performance.now() - t;
          if (res.statusCode !== 200) throw new Error(`GET ${p}: ${res.statusCode} ${JSON.stringify(body)}`);
          return { ms, body };
        };
        let url = '';
        try {
          url = (await nextMessage(child, (m: unknown): m is { type: 'ready'; url: string } => (m as { type?: string }).type === 'ready', 60_000)).url;
          // One-time costs of a fresh server on this file: the first exact count (the first request waits for it),
          // and the finished-jobs index (built by the first round's first listing of a finished state).
          let seeded = await get('/v1/dashboard/counts');
          const seedStart = performance.now();
          while (seeded.body.seeding === true || seeded.body.total !== total) {
            if (performance.now() - seedStart > 120_000) throw new Error(`counts never reached ${total}: ${JSON.stringify(seeded.body)}`);
            await new Promise((r) => setTimeout(r, 20));
            seeded = await get('/v1/dashboard/counts');
          }
          const countedMs = seeded.ms + (performance.now() - seedStart);
          const first = await get('/v1/dashboard/jobs?state=completed&limit=100');
          notes.push(`round ${round + 1}: the first counts answer took ${countedMs.toFixed(0)} ms (an exact count in slices); the first listing of a finished state ${first.ms.toFixed(0)} ms${round === 0 ? ' (it builds the finished-jobs index on this fresh file)' : ''}`);
          for (const [state, n] of Object.entries(counts)) {
            if (seeded.body.states[state] !== n) throw new Error(`counts say ${seeded.body.states[state]} ${state}, the file holds ${n}`);
          }
          // A cursor 50 pages into the biggest state.
          let deep = '';
          for (let i = 0; i < 50; i++) deep = (await get(`/v1/dashboard/jobs?state=completed&limit=100${deep ? `&cursor=${deep}` : ''}`)).body.next;
          const probes: Probe[] = [
            { label: 'counts', path: () => '/v1/dashboard/counts' },
            ...['pending', 'processing', 'completed', 'dead', 'cancelled', 'failed'].map((state) => ({ label: `page ${state}`, path: () => `/v1/dashboard/jobs?state=${state}&limit=100` })),
            { label: 'page completed, 51st', path: () => `/v1/dashboard/jobs?state=completed&limit=100&cursor=${deep}` },
            { label: 'page dead, one name', path: () => '/v1/dashboard/jobs?state=dead&name=report&limit=100' },
            { label: 'search dead (payload.customer = 42)', path: () => `/v1/dashboard/jobs?state=dead&limit=100&where=${encodeURIComponent('payload.customer = 42')}` },
          ];
          for (const probe of probes) {
            const times: number[] = [];
            for (let i = 0; i < requests; i++) times.push((await get(probe.path())).ms);
            const row = rows.get(probe.label) ?? { label: probe.label, system: 'litejobs', metrics: { p50: [], p99: [] } };
            row.metrics.p50!.push(percentile(times, 50));
            row.metrics.p99!.push(percentile(times, 99));
            rows.set(probe.label, row);
          }
        } finally {
          await agent.close();
          if (child.connected) child.send({ type: 'exit' });
          await exited(child, 30_000);
        }
      }
    } finally {
      removeDb(path);
    }
    const result = [...rows.values()];
    const checks: Check[] = result
      .filter((row) => !row.label.startsWith('search'))
      .map((row) => {
        const p99 = median(row.metrics.p99!);
        return valueCheck(p99, (v) => v <= TARGET_MS, `${p99.toFixed(1)} ms`, `dashboard ${row.label}: p99 ≤ ${TARGET_MS} ms on ${total.toLocaleString('en')} jobs`);
      });
    return {
      name: 'dashboard',
      title: this.title,
      description:
        `A file of ${total.toLocaleString('en')} jobs (${Object.entries(counts).map(([s, n]) => `${n.toLocaleString('en')} ${s}`).join(', ')}), three names, built by plain INSERTs. ` +
        `litejobs' own server (startServer, no workers) in a child process; this process sends ${requests} GETs per endpoint one after another on one keep-alive connection and times each answer, body read included.`,
      metrics: [P50, P99],
      config: {
        requests: `${requests} per endpoint per round, sequential`,
        order: 'pending: next to run first; processing: lease expiry; finished: most recent first; others: name, then due time',
        search: 'a payload search reads at most 20,000 rows per page and may answer a short page with a cursor (no target: its cost is bounded, not its matches)',
        rounds: `${rounds}, each on a fresh server process over the same file; the table shows the median of the rounds' percentiles`,
      },
      rounds,
      rows: result,
      ratios: [],
      checks,
      notes,
      skipped: [],
      durationMs: Date.now() - started,
    };
  },
};
