/**
 * `litejobs migrate --from <file> --to <postgres url>`: a SQLite queue with
 * jobs in every state, their history and a paused name is copied into a
 * PostgreSQL schema, and a queue opened on that schema reads every job and
 * history entry as the file's queue does, deduplicates the same keys, and
 * runs the jobs. A file whose workers still hold leases is refused.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueue, defineJob, type AnyJob, type Queue } from '../../src/index.js';
import { CLI_TEST_TIMEOUT, json, runCli, type CliResult } from '../helpers/cli.js';
import { holdLease, pgRows, pgTables, sqliteTables } from '../helpers/migrate.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDir } from '../helpers/temp-db.js';
import { events, nextEvent, waitFor } from '../helpers/wait.js';

const schema = usePgSchema();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const HOUR = 3_600_000;
const jobs: AnyJob[] = [
  defineJob({ name: 'ok', handler: async (p: { n: number }) => ({ done: p.n }) }),
  defineJob({ name: 'flaky', retry: { attempts: 3, backoff: { type: 'fixed', delay: HOUR } }, handler: async () => { throw new Error('flaky'); } }),
  defineJob({ name: 'doomed', retry: { attempts: 1 }, handler: async () => { throw new Error('no'); } }),
];

function sqliteQueue(path: string, withJobs = true): Queue {
  const q = createQueue({ path, logger: silentLogger, jobs: withJobs ? jobs : [] });
  cleanups.push(() => q.close());
  return q;
}

function newFile(): string {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  return join(dir.dir, 'jobs.db');
}

interface Summary {
  copied: number;
  history: number;
  skipped: number;
  states: Record<string, { source: number; target: number }>;
  verified: boolean;
  ms: number;
}

describe('litejobs migrate', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('copies jobs in every state with their history, paused names and schedules; the PostgreSQL queue reads, deduplicates and runs them', async () => {
    const path = newFile();
    const src = sqliteQueue(path);
    await src.start();
    const [done] = await Promise.all([
      events(src.events$, (e) => ['completed', 'failed', 'dead'].includes(e.to), 3, 60_000),
      src.enqueue('ok', { n: 1 }),
      src.enqueue('flaky', {}),
      src.enqueue('doomed', {}),
    ]);
    expect(done.map((e) => e.to).sort()).toEqual(['completed', 'dead', 'failed']);
    await src.stop();
    const delayed = await src.enqueue('later', { x: 1 }, { delay: HOUR });
    const cancelled = await src.enqueue('cancel-me', {});
    await src.cancel(cancelled.id);
    const keyed = await src.enqueue('report', { month: 11 }, { key: 'report:2026-11' });
    // A unique key held while pending: it moves with its job.
    const unique = await src.enqueue('later', { x: 2 }, { delay: HOUR, unique: { key: 'later:x', while: 'active' } });
    await src.pause('report');
    await src.schedule('report', '0 3 1 * *', { tz: 'Europe/Berlin', payload: { monthly: true }, missed: 'all' });
    await src.schedule('report', { every: '6h' }, { id: 'report-often', limit: 4, immediately: true, startDate: '2031-01-01T00:00:00Z' });
    const pending = await src.enqueue('ok', { n: 2 });
    await src.enqueue('stuck', {});
    // A worker that dies holding a job: processing, its lease running out.
    const holder = await holdLease(path, 300);
    await holder.kill();
    const lockedUntil = Number(sqliteTables(path).jobs.find((j) => j.id === String(holder.id))!.locked_until);
    await waitFor(() => Date.now() > lockedUntil);

    // A history tombstone, as retention leaves one after deleting the newest rows: it keeps the
    // highest history id taken, and belongs to no job.
    const file = new Database(path);
    const tombstone = (file.prepare('SELECT max(id) FROM job_history').pluck().get() as number) + 3;
    file.prepare("INSERT INTO job_history (id, job_id, from_state, to_state, event, at) VALUES (?, 0, NULL, '', 'history.purged', ?)").run(tombstone, Date.now());
    file.close();

    const name = schema();
    const url = `${pgUrl()}?schema=${name}`;
    const r = await runCli(['migrate', '--from', path, '--to', url, '--json', '--reserve-ids', '1000']);
    expect(r.code, r.stderr).toBe(0);
    const summary = json<Summary>(r);
    const source = await src.stats();
    expect(source.byState).toEqual({ completed: 1, failed: 1, dead: 1, pending: 4, cancelled: 1, processing: 1 });
    expect(summary).toMatchObject({ copied: source.total, skipped: 0, verified: true });
    for (const [state, n] of Object.entries(source.byState)) expect(summary.states[state]).toEqual({ source: n, target: n });
    // Every column of every row, ids and history order included (history: claims, failures, the completion, the cancel).
    const copied = await pgTables(name);
    const original = sqliteTables(path);
    expect(copied).toEqual(original);
    expect(summary.history).toBe(original.history.length);
    expect(original.history.length).toBeGreaterThan(5);
    expect(await pgRows(`SELECT id FROM "${name}".job_history WHERE job_id = 0`)).toEqual([]);

    const unstuck: AnyJob = defineJob({ name: 'stuck', retry: { attempts: 3, backoff: { type: 'fixed', delay: 10 } }, handler: async () => 'unstuck' });
    const dst: Queue = createQueue({ connection: pgUrl(), schema: name, logger: silentLogger, jobs: [...jobs, unstuck] as AnyJob[] });
    cleanups.push(() => dst.close());
    const all = await src.listJobs({ limit: 100 });
    expect(all).toHaveLength(source.total);
    for (const job of all) {
      expect(await dst.getJob(job.id)).toEqual(await src.getJob(job.id));
      expect(await dst.history(job.id)).toEqual(await src.history(job.id));
    }
    const { stuck: _a, ...copiedStats } = await dst.stats();
    const { stuck: _b, ...sourceStats } = source;
    expect(copiedStats).toEqual(sourceStats);
    expect(copiedStats.paused).toEqual({ all: false, names: ['report'] });
    // Schedules come along, with the slot they last fired (none yet here).
    expect(await dst.schedules()).toEqual(await src.schedules());
    expect((await dst.schedules()).map((x) => [x.id, x.name])).toEqual([['report', 'report'], ['report-often', 'report']]);

    // New ids start above the reserve; keys still deduplicate.
    const maxId = Math.max(...all.map((j) => j.id));
    expect((await dst.enqueue('later', {})).id).toBe(maxId + 1000 + 1);
    expect(await dst.enqueue('report', { month: 11 }, { key: 'report:2026-11' })).toMatchObject({ id: keyed.id, created: false });
    expect(await dst.enqueue('later', { x: 3 }, { unique: { key: 'later:x', while: 'active' } })).toMatchObject({ id: unique.id, created: false });
    // History ids PostgreSQL hands out start above the tombstone's and the reserve.
    await dst.cancel(delayed.id);
    const [cancelRow] = await pgRows<{ id: string }>(`SELECT max(id) AS id FROM "${name}".job_history`);
    expect(Number(cancelRow!.id)).toBe(tombstone + 1000 + 1);
    expect((await dst.history(delayed.id)).map((h) => h.event)).toEqual(['job.enqueue', 'job.cancel']);

    // Workers on PostgreSQL run the pending job, and retry the one whose lease ran out.
    const ran = Promise.all([
      nextEvent(dst.events$, (e) => e.job.id === pending.id && e.to === 'completed', 60_000),
      nextEvent(dst.events$, (e) => e.job.id === holder.id && e.to === 'completed', 60_000),
    ]);
    await dst.start();
    await ran;
    expect((await dst.getJob(pending.id)).result).toEqual({ done: 2 });
    expect((await dst.history(holder.id)).map((h) => h.event)).toEqual(['job.enqueue', 'job.claim', 'job.expire', 'after retryDelay', 'job.claim', 'job.complete']);
    // The paused name's job stays where it was.
    expect((await dst.getJob(keyed.id)).state).toBe('pending');
  });

  it('refuses a file whose workers hold live leases; --allow-running copies them as they are', async () => {
    const path = newFile();
    const src = sqliteQueue(path, false);
    await src.enqueue('ok', { n: 1 });
    await src.enqueue('stuck', {});
    const holder = await holdLease(path, 600_000);
    const name = schema();
    const url = `${pgUrl()}?schema=${name}`;

    const refused = await runCli(['migrate', '--from', path, '--to', url]);
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^litejobs: error: LJ_ERR_MIGRATE_RUNNING: 1 job is running under a live lease .*\(ids 2\).*Stop the SQLite workers first.*--allow-running/m);
    expect(await pgRows(`SELECT id FROM "${name}".jobs`)).toEqual([]);

    const copied = await runCli(['migrate', '--from', path, '--to', url, '--allow-running', '--json', '--quiet']);
    expect({ code: copied.code, stderr: copied.stderr }).toEqual({ code: 0, stderr: '' });
    expect(json<Summary>(copied)).toMatchObject({ copied: 2, verified: true });
    // The lease as it is: owner, token and expiry.
    const copiedRows = await pgTables(name);
    expect(copiedRows.jobs).toEqual(sqliteTables(path).jobs);
    expect(copiedRows.jobs.find((j) => j.id === String(holder.id))).toMatchObject({ state: 'processing', lease_owner: expect.any(String), locked_until: expect.any(String) });
  });

  it('answers bad flags with usage errors (exit 2) and a missing file with exit 1, writing nothing', async () => {
    const path = newFile();
    const url = `${pgUrl()}?schema=${schema()}`;
    const cases: Array<[string[], number, RegExp]> = [
      [['migrate', '--to', url], 2, /required option '--from <file>' not specified/],
      [['migrate', '--from', path], 2, /required option '--to <url>' not specified/],
      [['migrate', '--from', path, '--to', './other.db'], 2, /'--to <url>' argument '\.\/other\.db' is invalid.*postgres:\/\/ URL/],
      [['migrate', '--from', path, '--to', `${pgUrl()}?schema=Bad-Name`], 2, /'--to <url>' argument .* is invalid.*not a schema name/],
      [['migrate', '--from', path, '--to', url, '--batch', '0'], 2, /the batch size must be an integer from 1 to 100000/],
      [['migrate', '--from', path, '--to', url, '--reserve-ids', '-5'], 2, /--reserve-ids/],
      [['migrate', '--from', url, '--to', url], 2, /--from is the SQLite file/],
      [['migrate', '--from', path, '--to', url], 1, /LJ_ERR_DATABASE_OPEN: cannot open database .*jobs\.db/],
    ];
    const results: CliResult[] = await Promise.all(cases.map(([args]) => runCli(args)));
    for (const [i, r] of results.entries()) {
      expect({ code: r.code, stdout: r.stdout }, r.stderr).toEqual({ code: cases[i]![1], stdout: '' });
      expect(r.stderr).toMatch(/^litejobs: error: [^\n]+\n$/);
      expect(r.stderr).toMatch(cases[i]![2]);
    }
    expect(await pgRows('SELECT 1 FROM pg_namespace WHERE nspname = $1', [new URL(url).searchParams.get('schema')])).toEqual([]);
  });
});
