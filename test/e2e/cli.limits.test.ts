/**
 * `litejobs enqueue --group`, `litejobs limits` and `litejobs
 * group-concurrency` in processes of their own, on a database whose jobs
 * another process is running: the table and JSON show the groups' running
 * and pending jobs, and a group concurrency set by the CLI lets that
 * process run more of the group.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueue, defineJob, RateLimitedError } from '../../src/index.js';
import { SYNC_LIMITS } from '../fixtures/limited-handlers.js';
import { CLI_TEST_TIMEOUT, json, runCli, type CliResult } from '../helpers/cli.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDir } from '../helpers/temp-db.js';
import { nextEvent, transitions$, waitFor } from '../helpers/wait.js';

const HANDLERS = fileURLToPath(new URL('../fixtures/limited-handlers.ts', import.meta.url));

const pgSchema = usePgSchema();
let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function tempDb(name = 'q.db'): string {
  const dir = tempDir();
  cleanup = dir.cleanup;
  return join(dir.dir, name);
}

/** Exit 0 and nothing on stderr. */
function ok(r: CliResult): CliResult {
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  return r;
}

/** A process running `sync` jobs that wait for the test, and an `api` job whose first run hits a rate limit of a minute. */
function runningQueue(db: string) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let limited = false;
  // Starts counted where the handler runs, claims where the job moves: a claimed job may still be handed back
  // unstarted (past its rate-limit start deadline on a busy machine) and claimed again, spending another token.
  const started = new Set<number>();
  let claims = 0;
  const jobs = [
    defineJob({
      name: 'sync',
      ...SYNC_LIMITS,
      handler: (_payload, ctx) => {
        started.add(ctx.jobId);
        return held;
      },
    }),
    defineJob({
      name: 'api',
      handler: () => {
        if (!limited) {
          limited = true;
          throw new RateLimitedError(60_000);
        }
      },
    }),
  ];
  const queue = createQueue({ path: db, logger: silentLogger, concurrency: 4, jobs });
  transitions$(queue.events$).subscribe((e) => {
    if (e.to === 'processing' && e.job.name === 'sync') claims += 1;
  });
  return {
    queue,
    started,
    claims: () => claims,
    async stop() {
      release();
      await queue.close({ timeout: 5000 });
    },
  };
}

describe('litejobs limits and group-concurrency', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('enqueue --group stores the group, job shows it; limits lists the names and groups as a table and as JSON; group-concurrency sets and clears', async () => {
    const db = tempDb();
    const enqueued = json<{ id: number }>(ok(await runCli(['enqueue', 'sync', '{"n":1}', '--group', 'customer:1', '--db', db, '--json'])));
    const p = runningQueue(db);
    try {
      await p.queue.enqueue('sync', { n: 2 }, { group: 'customer:1' });
      await p.queue.enqueue('sync', { n: 3 }, { group: 'customer:2' });
      const vendor = await p.queue.enqueue('api', {}, { group: 'vendor' });
      const paused = nextEvent(p.queue.events$, (e) => e.job.id === vendor.id && e.from === 'processing' && e.to === 'pending');
      await p.queue.start();
      await paused;
      await waitFor(() => p.started.size === 2);

      const shown = ok(await runCli(['job', String(enqueued.id), '--db', db])).stdout;
      expect(shown).toMatch(/^ {2}group +customer:1$/m);

      const text = ok(await runCli(['limits', '--db', db, '--handlers', HANDLERS])).stdout;
      const lines = text.split('\n');
      expect(lines.slice(0, 3)).toEqual(['limited names', expect.stringMatching(/^NAME +GROUP CONC\. +GLOBAL CONC\. +RATE +RUNNING +TOKENS LEFT +PAUSED UNTIL$/), expect.stringMatching(new RegExp(`^sync +1 +4 +100 per 1 m +2 +${100 - p.claims()} +-$`))]);
      expect(lines.slice(3, 9)).toEqual([
        '',
        'groups',
        expect.stringMatching(/^GROUP +PENDING +RUNNING +CONCURRENCY +PAUSED UNTIL$/),
        expect.stringMatching(/^customer:1 +1 +1 +- +-$/),
        expect.stringMatching(/^customer:2 +0 +1 +- +-$/),
        expect.stringMatching(/^vendor +1 +0 +- +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z \(in \d+ s\)$/),
      ]);

      // Without the definitions, a name is listed for its stored bucket only, without its settings.
      const bare = ok(await runCli(['limits', '--db', db])).stdout;
      expect(bare.split('\n')[2]).toMatch(/^sync +- +- +- +2 +- +-$/);

      expect(ok(await runCli(['group-concurrency', 'customer:1', '2', '--db', db])).stdout).toBe('group customer:1: at most 2 jobs at once\n');
      // The running process picks the group's own concurrency up: the second job of customer:1 starts.
      await waitFor(() => p.started.size === 3, 20_000);
      const view = json<{ names: Array<Record<string, unknown>>; groups: Array<Record<string, unknown>> }>(ok(await runCli(['--db', db, 'limits', '--json', '--handlers', HANDLERS])));
      expect(view.names).toEqual([{ name: 'sync', groupConcurrency: 1, globalConcurrency: 4, rateLimit: { max: 100, perMs: 60_000, perGroup: false }, running: 3, tokensLeft: 100 - p.claims(), pausedUntil: null }]);
      expect(view.groups.slice(0, 2)).toEqual([
        { group: 'customer:1', pending: 0, running: 2, concurrency: 2, pausedUntil: null },
        { group: 'customer:2', pending: 0, running: 1, concurrency: null, pausedUntil: null },
      ]);
      expect(view.groups[2]).toEqual({ group: 'vendor', pending: 1, running: 0, concurrency: null, pausedUntil: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });

      expect(json(ok(await runCli(['group-concurrency', 'customer:1', 'none', '--db', db, '--json'])))).toEqual({ group: 'customer:1', concurrency: null });
      expect((await p.queue.limits()).groups.find((g) => g.group === 'customer:1')?.concurrency).toBeNull();
    } finally {
      await p.stop();
    }
  });

  it('an empty queue says so; bad input is a usage error and stores nothing', async () => {
    const db = tempDb();
    await createQueue({ path: db, logger: silentLogger }).close(); // an empty file: read commands never make one
    expect(ok(await runCli(['limits', '--db', db])).stdout).toBe(
      'limited names\nno limited names stored (give --handlers to list the limits your job definitions set)\n\ngroups\nno groups with jobs pending or running\n',
    );
    for (const args of [
      ['group-concurrency', 'g', '1.5'],
      ['group-concurrency', '', '2'],
      ['enqueue', 'sync', '1', '--group', ''],
    ]) {
      const r = await runCli([...args, '--db', db]);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(/^litejobs: error: .*(concurrency|group|argument)/);
    }
    expect(json(ok(await runCli(['stats', '--db', db, '--json'])))).toMatchObject({ total: 0 });
  });
});

describe('on PostgreSQL', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('enqueue --group, group-concurrency and limits work on a schema as on a file', async () => {
    const db = `${pgUrl()}?schema=${pgSchema()}`;
    const { id } = json<{ id: number }>(ok(await runCli(['enqueue', 'sync', '{}', '--group', 'customer:1', '--json', '--db', db])));
    expect(ok(await runCli(['group-concurrency', 'customer:1', '3', '--db', db])).stdout).toBe('group customer:1: at most 3 jobs at once\n');
    expect(json(ok(await runCli(['limits', '--json', '--handlers', HANDLERS, '--db', db])))).toEqual({
      names: [{ name: 'sync', groupConcurrency: 1, globalConcurrency: 4, rateLimit: { max: 100, perMs: 60_000, perGroup: false }, running: 0, tokensLeft: 100, pausedUntil: null }],
      groups: [{ group: 'customer:1', pending: 1, running: 0, concurrency: 3, pausedUntil: null }],
    });
    expect(json<{ group?: string }>(ok(await runCli(['job', String(id), '--json', '--db', db]))).group).toBe('customer:1');
  });
});

describe('litejobs set-limits', { timeout: CLI_TEST_TIMEOUT }, () => {
  it("changes a running process's limits within a second, and --reset gives the definition's back", async () => {
    const db = tempDb();
    const gates: Array<() => void> = [];
    const worker = createQueue({ path: db, logger: silentLogger, concurrency: 5, jobs: [defineJob({ name: 'mail', globalConcurrency: 1, handler: () => new Promise<void>((done) => gates.push(done)) })] });
    try {
      await worker.enqueueMany([1, 2, 3].map((payload) => ({ name: 'mail', payload })));
      await worker.start();
      await waitFor(() => gates.length === 1);
      const set = ok(await runCli(['set-limits', 'mail', '--global-concurrency', '3', '--rate', '100/1s', '--per-group', '--db', db]));
      expect(set.stdout).toBe('mail: rate 100 per 1.0 s per group, global concurrency 3, group concurrency - (changed: rate limit, global concurrency; every started queue takes it up within a second)\n');
      await waitFor(() => gates.length === 3);
      const listed = json<{ names: Array<{ name: string; changed?: unknown }> }>(ok(await runCli(['limits', '--json', '--db', db])));
      expect(listed.names).toEqual([expect.objectContaining({ name: 'mail', changed: { rateLimit: { max: 100, perMs: 1000, perGroup: true }, globalConcurrency: 3 } })]);
      const reset = json<Record<string, unknown>>(ok(await runCli(['set-limits', 'mail', '--reset', '--json', '--db', db])));
      expect(reset).toMatchObject({ name: 'mail', globalConcurrency: null, rateLimit: null });
      expect(reset).not.toHaveProperty('changed');
      expect((await worker.limits()).names.find((n) => n.name === 'mail')).toMatchObject({ globalConcurrency: 1, rateLimit: null });
    } finally {
      for (const done of gates.splice(0)) done();
      await worker.close();
    }
  });

  it.each([
    ['no limit', ['set-limits', 'mail'], /give a limit to change/],
    ['a rate that is not max/window', ['set-limits', 'mail', '--rate', 'fast'], /<max>\/<window>/],
    ['an unknown window', ['set-limits', 'mail', '--rate', '5/soon'], /LJ_ERR_VALIDATION/],
    ['a concurrency of 0', ['set-limits', 'mail', '--global-concurrency', '0'], /integer from 1 to 1000000/],
    ['--reset with a change', ['set-limits', 'mail', '--reset', '--global-concurrency', '2'], /--reset changes nothing else/],
    ['--per-group without a rate', ['set-limits', 'mail', '--per-group', '--global-concurrency', '2'], /--per-group goes with a --rate/],
  ])('refuses %s with exit code 2, storing nothing', async (_what, args, message) => {
    const db = tempDb();
    const made = createQueue({ path: db, logger: silentLogger });
    await made.ping();
    await made.close();
    const r = await runCli([...args, '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    const q = createQueue({ path: db, logger: silentLogger });
    expect((await q.limits()).names).toEqual([]);
    await q.close();
  });
});
