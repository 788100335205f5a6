/**
 * `npm start` runs `litejobs demo`: the service with sample jobs and a flaky
 * local receiver. Run as a user runs it (a real child process, real sockets,
 * a real file): the URLs it prints answer, every sample job and delivery
 * completes (some after retries), a hook sent to it is forwarded to the
 * receiver, and SIGINT or SIGTERM drain it to exit 0 with nothing left
 * under a lease.
 */
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-db.js';
import { nodeArgs } from '../helpers/node-args.js';

const bin = fileURLToPath(new URL('../../src/cli/bin.ts', import.meta.url));
/** A seed whose receiver fails a few requests, never the same one twice in a row. */
const SEED = '38';
/** 4 sample jobs + 12 deliveries. */
const ENQUEUED = 16;

const running: ChildProcess[] = [];
let cleanup: (() => void) | undefined;
afterEach(() => {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  cleanup?.();
});

async function startDemo(dir: string): Promise<{ child: ChildProcess; out: () => string; api: string; receiver: string }> {
  const child = spawn(process.execPath, nodeArgs(bin, 'demo', '--port', '0', '--seed', SEED, '--rate', '0'), { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
  running.push(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  for (let i = 0; i < 600 && !/receiver\s+http/.test(out); i++) {
    if (child.exitCode !== null) throw new Error(`demo exited early: ${out}`);
    await sleep(50);
  }
  const api = /stats\s+(http:\/\/[^/\s]+)\/v1\/stats/.exec(out)?.[1];
  const receiver = /receiver\s+(http:\/\/\S+)/.exec(out)?.[1];
  if (!api || !receiver) throw new Error(`demo printed no URLs: ${out}`);
  return { child, out: () => out, api, receiver };
}

async function stats(api: string): Promise<{ byState: Record<string, number>; byName: Record<string, Record<string, number>>; total: number }> {
  return (await (await fetch(`${api}/v1/stats`)).json()) as { byState: Record<string, number>; byName: Record<string, Record<string, number>>; total: number };
}

function jobsIn(dir: string) {
  const db = new Database(join(dir, 'litejobs.db'), { readonly: true });
  try {
    return db.prepare('SELECT name, state, attempts FROM jobs ORDER BY id').all() as Array<{ name: string; state: string; attempts: number }>;
  } finally {
    db.close();
  }
}

describe('litejobs demo (npm start)', () => {
  it('serves the API, completes every sample job and delivery but the one left dead to retry, forwards a hook, and exits 0 on SIGINT', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    cleanup = dir.cleanup;
    const demo = await startDemo(dir.dir);
    expect(demo.out()).toMatch(/16 jobs enqueued \(0 already there\)/);
    expect(demo.out()).toMatch(/dashboard +http:\/\/127\.0\.0\.1:\d+\/\n/);
    // Piped, it still logs readable lines, not pino's JSON.
    expect(demo.out()).toMatch(/^\d\d:\d\d:\d\d INFO {2}queue started/m);
    expect(demo.out()).not.toMatch(/^\{"level"/m);

    const hook = await fetch(`${demo.api}/v1/hooks/demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"hello":"world"}' });
    expect(hook.status).toBe(201);
    // The demo's cron schedule adds a job every 30 s: counted apart.
    const SCHEDULED = 'refresh-exchange-rates';
    const samples = (st: Awaited<ReturnType<typeof stats>>) => {
      const byState: Record<string, number> = {};
      for (const [name, states] of Object.entries(st.byName)) if (name !== SCHEDULED) for (const [state, n] of Object.entries(states)) byState[state] = (byState[state] ?? 0) + n;
      return byState;
    };
    let s = await stats(demo.api);
    for (let i = 0; i < 600 && (samples(s).completed ?? 0) < ENQUEUED; i++) {
      await sleep(100);
      s = await stats(demo.api);
    }
    expect(samples(s)).toEqual({ completed: ENQUEUED, dead: 1 });
    const schedules = (await (await fetch(`${demo.api}/v1/schedules`)).json()) as { schedules: Array<{ name: string; cron: string }> };
    expect(schedules.schedules.map((x) => [x.name, x.cron])).toEqual([[SCHEDULED, '*/30 * * * * *']]);
    expect(s.byName['import-orders']).toEqual({ dead: 1 });
    // The dead job says what happened in its own log lines (the dashboard's job page shows them).
    const dead = (await (await fetch(`${demo.api}/v1/jobs?state=dead`)).json()) as { jobs: Array<{ id: number; name: string }> };
    const imported = dead.jobs.find((j) => j.name === 'import-orders')!;
    const logs = (await (await fetch(`${demo.api}/v1/jobs/${imported.id}/logs`)).json()) as { lines: Array<{ level: string; message: string; attempt: number }> };
    expect(logs.lines.map((l) => [l.level, l.message, l.attempt])).toEqual([
      ['info', 'fetching order batch', 1],
      ['warn', 'upstream rejected the batch: not retrying on its own', 1],
    ]);
    const receiver = (await (await fetch(demo.receiver)).json()) as { ok: number; failed: number; limited: number };
    expect(receiver.ok).toBe(13); // the 12 deliveries and the hook, each taken once
    expect(receiver.failed + receiver.limited).toBeGreaterThan(0); // the seed makes it fail some
    const metrics = await (await fetch(`${demo.api}/metrics`)).text();
    expect(metrics).toMatch(/^litejobs_jobs\{state="completed",name="webhook"\} 13$/m);

    demo.child.kill('SIGINT');
    const [code] = await once(demo.child, 'exit');
    expect(code, demo.out()).toBe(0);
    const jobs = jobsIn(dir.dir);
    expect(jobs.find((j) => j.name === 'fail-me')).toEqual({ name: 'fail-me', state: 'completed', attempts: 3 });
    expect(jobs.filter((j) => j.name === 'webhook').some((j) => j.attempts > 1)).toBe(true);
  });

  it('SIGTERM right after start drains running jobs and exits 0; nothing is left processing', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    cleanup = dir.cleanup;
    const demo = await startDemo(dir.dir);
    demo.child.kill('SIGTERM');
    const [code] = await once(demo.child, 'exit');
    expect(code, demo.out()).toBe(0);
    expect(demo.out()).toMatch(/shutting down/);
    const jobs = jobsIn(dir.dir);
    expect(jobs).toHaveLength(ENQUEUED);
    expect(jobs.filter((j) => j.state === 'processing')).toEqual([]);
  });
});
