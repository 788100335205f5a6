/**
 * batches: large `POST /v1/jobs/batch` bodies at once against `startServer`:
 * how long `/healthz` waits at worst and how far the server's RSS climbs,
 * with one batch and with several sent together.
 */
import { readFileSync } from 'node:fs';
import { exited, forkChild, nextMessage } from '../lib/child.js';
import { alternate, medianOf, roundsFor, valueCheck, type Contender } from '../lib/rounds.js';
import { fmt } from '../lib/stats.js';
import { freshDbPath, removeDb } from '../lib/tmp.js';
import type { Metric, RunContext, Scenario } from '../lib/types.js';

const MiB = 1024 * 1024;
const JOBS = 1000; // the most a batch may hold
const POLL_MS = 10;
const AT_ONCE = [1, 3, 12];

type Ready = { type: 'ready'; url: string };
const isReady = (m: unknown): m is Ready => (m as { type?: string }).type === 'ready';

/** A batch of 1000 jobs of ~16 KiB each: just under the 16 MiB batch limit. */
function batchBody(): string {
  const fill = 'x'.repeat(16 * 1024 - 100);
  return JSON.stringify({ jobs: Array.from({ length: JOBS }, (_, i) => ({ name: 'bulk', payload: { body: fill + i } })) });
}

function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: (kib('VmRSS') * 1024) / MiB, hwm: (kib('VmHWM') * 1024) / MiB };
}

async function measure(ctx: RunContext, body: string, n: number): Promise<Record<string, number>> {
  const path = freshDbPath(ctx.tmpDir, 'batches');
  const child = forkChild('http-server.ts', ['litejobs-normal', path]);
  try {
    const { url } = await nextMessage(child, isReady, 30_000);
    // Settled: the server has answered a few requests, and its RSS is read before any batch.
    for (let i = 0; i < 5; i++) await fetch(`${url}/healthz`).then((r) => r.text());
    const before = memoryOf(child.pid!).rss;
    let worst = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const t = performance.now();
        const r = await fetch(`${url}/healthz`);
        await r.text();
        if (r.status !== 200) throw new Error(`/healthz answered ${r.status}`);
        worst = Math.max(worst, performance.now() - t);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    })();
    const t0 = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: n }, () => fetch(`${url}/v1/jobs/batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) => {
        await r.text();
        return r.status;
      })),
    );
    const elapsed = performance.now() - t0;
    polling = false;
    await poller;
    const peak = memoryOf(child.pid!).hwm;
    if (statuses.some((s) => s !== 201)) throw new Error(`batch answers: ${statuses.join(', ')}`);
    return { healthz: worst, growth: peak - before, elapsed };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      if (child.connected) child.send({ type: 'exit' });
      await exited(child, 30_000);
    }
    removeDb(path);
  }
}

export const batchesScenario: Scenario = {
  name: 'batches',
  title: 'Large HTTP batches at once',
  async run(ctx) {
    const started = Date.now();
    const rounds = roundsFor(ctx, 3, 1);
    const body = batchBody();
    const label = (n: number) => (n === 1 ? '1 batch' : `${n} batches at once`);
    const contenders: Contender[] = AT_ONCE.map((n) => ({ label: label(n), system: 'litejobs', run: () => measure(ctx, body, n) }));
    const rows = await alternate(ctx, 'batches', rounds, contenders);
    const metrics: Metric[] = [
      { key: 'healthz', label: '/healthz worst', unit: 'ms', better: 'lower' },
      { key: 'growth', label: 'RSS peak growth', unit: 'MiB', better: 'lower' },
      { key: 'elapsed', label: 'all answered', unit: 'ms', better: 'lower' },
    ];
    const one = medianOf(rows, label(1), 'healthz');
    const many = medianOf(rows, label(12), 'healthz');
    return {
      name: 'batches',
      title: this.title,
      description:
        `A fresh litejobs server process (startServer, no workers) takes 1, 3 or 12 batches of ${JOBS} jobs (${fmt(Buffer.byteLength(body) / MiB)} MiB each) sent at once over loopback, ` +
        `while a client asks GET /healthz every ${POLL_MS} ms. Measured: the slowest /healthz answer, the server's peak RSS (VmHWM) minus its RSS before the batches, and the time until every batch was answered (201).`,
      metrics,
      config: { jobsPerBatch: JOBS, bodyMiB: Buffer.byteLength(body) / MiB, atOnce: AT_ONCE, litejobs: 'startServer defaults (bodyLimit 1 MiB, batchBodyLimit 16 MiB)' },
      rounds,
      rows,
      ratios: [],
      checks: [valueCheck(many / one, (v) => v <= 4, `${fmt(many / one)}×`, '12 batches at once: /healthz worst ≤ 4× its worst under one batch')],
      notes: ['RSS growth includes garbage V8 has not collected yet and SQLite\'s page cache (64 MiB by default) filling with the new rows.'],
      skipped: [],
      durationMs: Date.now() - started,
    };
  },
};
