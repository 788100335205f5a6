/**
 * Every `litejobs` command's happy path as a user runs it: a child process on
 * a temp file, its table and its --json output, with --db before or after
 * the command name, from $LITEJOBS_DB, or ./litejobs.db by default.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueue, defineJob, type Job } from '../../src/index.js';
import { CLI_TEST_TIMEOUT, json, runCli, type CliResult } from '../helpers/cli.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDir } from '../helpers/temp-db.js';
import { events } from '../helpers/wait.js';

type JobJson = Omit<Job, 'runAt' | 'createdAt' | 'updatedAt'> & { runAt: string; createdAt: string; updatedAt: string };
type TimelineJson = { from: string | null; to: string; event: string; at: string; durationMs: number | null; error?: { message: string } };

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function tempFolder(): string {
  const dir = tempDir();
  cleanup = dir.cleanup;
  return dir.dir;
}

/** Exit 0 and nothing on stderr. */
function ok(r: CliResult): CliResult {
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  return r;
}

/** Jobs that end `dead` after two attempts, each failing with its attempt number in the message; and one left pending. */
async function makeDeadJobs(db: string, names: readonly string[]): Promise<{ dead: number[]; spare: number }> {
  const handler = async (_payload: unknown, { attempt }: { attempt: number }) => {
    throw new Error(`upstream said no on attempt ${attempt}`);
  };
  const retry = { attempts: 2, backoff: { type: 'fixed', delay: 1 } } as const;
  const queue = createQueue({ path: db, logger: silentLogger, jobs: [...new Set(names)].map((name) => defineJob({ name, retry, handler })) });
  const dead = events(queue.events$, (e) => e.to === 'dead', names.length);
  const ids = [];
  for (const name of names) ids.push((await queue.enqueue(name, { for: name })).id);
  // A job no process runs: it stays pending.
  const { id: spare } = await queue.enqueue('spare', {});
  await queue.start();
  await dead;
  await queue.close();
  return { dead: ids, spare };
}

describe('litejobs enqueue, jobs', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('enqueue prints the id and whether it was created; --db goes before or after the command, $LITEJOBS_DB and ./litejobs.db stand in', async () => {
    const dir = tempFolder();
    const db = join(dir, 'litejobs.db');

    // No --db, no $LITEJOBS_DB: ./litejobs.db in the working folder.
    expect(ok(await runCli(['enqueue', 'email', '{"to":"ada@example.com"}', '--key', 'welcome:ada'], { cwd: dir })).stdout).toBe('job 1 created\n');
    expect(existsSync(db)).toBe(true);
    const [again, viaEnv] = await Promise.all([
      runCli(['enqueue', 'email', '{"to":"ada@example.com"}', '--key', 'welcome:ada', '--db', db]),
      runCli(['enqueue', 'report', '[1,2]', '--delay', '5m', '--priority', '7', '--json'], { env: { LITEJOBS_DB: db } }),
    ]);
    expect(ok(again).stdout).toBe('job 1 already enqueued under key "welcome:ada": not created\n');
    expect(json(ok(viaEnv))).toEqual({ id: 2, created: true });
    expect(json(ok(await runCli(['--db', db, 'enqueue', 'email', '{"to":"ada@example.com"}', '--key', 'welcome:ada', '--json'])))).toEqual({
      id: 1,
      created: false,
    });

    const [table, filtered, firstPage, secondPage] = await Promise.all([
      runCli(['jobs', '--db', db]),
      runCli(['--db', db, 'jobs', '--state', 'pending', '--name', 'report', '--json']),
      runCli(['jobs', '--limit', '1', '--db', db]),
      runCli(['jobs', '--limit', '1', '--after', '1', '--json', '--db', db]),
    ]);
    const lines = ok(table).stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATE\s+ATTEMPTS\s+RUN AT\s+UPDATED\s+KEY$/);
    expect(lines[1]).toMatch(/^1\s+email\s+pending\s+0\s+.+\s+welcome:ada$/);
    // Due 5 minutes after its enqueue; how much of that is left depends on how long the CLI took to start.
    expect(lines[2]).toMatch(/^2\s+report\s+pending\s+0\s+in [34] m \d{1,2} s\s+.+\s+-$/);
    expect(lines).toHaveLength(3); // no next-page hint: the page was not full

    const [report] = json<JobJson[]>(ok(filtered));
    expect(json<JobJson[]>(filtered)).toHaveLength(1);
    expect(report).toMatchObject({ id: 2, name: 'report', state: 'pending', payload: [1, 2], priority: 7, key: null, attempts: 0 });
    expect(Math.abs(Date.parse(report!.runAt) - Date.parse(report!.createdAt) - 300_000)).toBeLessThan(1000);

    expect(ok(firstPage).stdout).toMatch(/^ID .*\n1 +email .*\n\nnext page: litejobs jobs --db \S+ --limit 1 --after 1\n$/);
    expect(ok(firstPage).stdout).toContain(`--db ${db} `);
    expect(json<JobJson[]>(ok(secondPage)).map((j) => j.id)).toEqual([2]);
  });
});

describe('litejobs job, retry, cancel', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('job lists the durable steps the job completed, in order, after its timeline', async () => {
    const db = join(tempFolder(), 'steps.db');
    const queue = createQueue({
      path: db,
      logger: silentLogger,
      jobs: [
        defineJob({
          name: 'stepped',
          handler: async (_p, ctx) => {
            await ctx.step('fetch rows', () => ({ rows: 3 }));
            await ctx.step('notify', () => undefined);
            await ctx.sleep('pause', 0);
            return 'ok';
          },
        }),
      ],
    });
    const done = events(queue.events$, (e) => e.to === 'completed', 1);
    const { id } = await queue.enqueue('stepped', null);
    await queue.start();
    await done;
    await queue.close();

    const [text, asJson] = await Promise.all([runCli(['job', String(id), '--db', db]), runCli(['job', String(id), '--json', '--db', db])]);
    const out = ok(text).stdout;
    const steps = out.slice(out.indexOf('\nsteps\n') + 1).split('\n');
    expect(steps[1]).toMatch(/^ +SEQ +STEP +AT +ATTEMPT +RESULT$/);
    expect(steps[2]).toMatch(/^ +1 +fetch rows +\S.* +1 +\{"rows":3\}$/);
    expect(steps[3]).toMatch(/^ +2 +notify +\S.* +1 +-$/);
    expect(steps[4]).toMatch(/^ +3 +pause +\S.* +1 +sleep until \S/);
    expect(out.indexOf('timeline')).toBeLessThan(out.indexOf('\nsteps\n'));
    const detail = json<{ steps: Array<{ name: string; seq: number; result?: unknown; wakeAt: string | null; attempt: number }> }>(ok(asJson));
    expect(detail.steps.map((s) => [s.seq, s.name, s.result, s.wakeAt === null, s.attempt])).toEqual([
      [1, 'fetch rows', { rows: 3 }, true, 1],
      [2, 'notify', undefined, true, 1],
      [3, 'pause', undefined, false, 1],
    ]);
  });

  it('job shows the fields and a timeline with the time in each state and the errors; retry and cancel change the job', async () => {
    const db = join(tempFolder(), 'jobs.db');
    const {
      dead: [flakyA, flakyB, other],
      spare,
    } = await makeDeadJobs(db, ['flaky', 'flaky', 'other']);

    const [text, asJson] = await Promise.all([runCli(['job', String(flakyA), '--db', db]), runCli(['job', String(flakyA), '--json', '--db', db])]);
    const out = ok(text).stdout;
    expect(out).toMatch(new RegExp(`^job ${flakyA} flaky\\n`));
    expect(out).toMatch(/ state +dead\n/);
    expect(out).toMatch(/ attempts +2\n/);
    expect(out).toMatch(/ payload +\{"for":"flaky"\}\n/);
    expect(out).toMatch(/ last error +Error: upstream said no on attempt 2\n/);
    expect(out).toMatch(/TRANSITION\s+EVENT\s+TIME IN STATE\s+ERROR/);
    // Each transition on its own row, in order, with the time the job then spent in the state it entered.
    const rows = out.slice(out.indexOf('timeline')).split('\n').slice(2, -1);
    expect(rows.map((r) => r.match(/(\S+ → \S+)/)?.[1])).toEqual([
      '(new) → pending',
      'pending → processing',
      'processing → failed',
      'failed → pending',
      'pending → processing',
      'processing → dead',
    ]);
    expect(rows[2]).toMatch(/job\.fail\s+\d+(\.\d)? m?s\s+Error: upstream said no on attempt 1$/);
    expect(rows[3]).toMatch(/failed → pending\s+after retryDelay\s+\d/); // the machine's delayed event, as the lifecycle page names it
    expect(rows[5]).toMatch(/job\.fail\s+-\s+Error: upstream said no on attempt 2$/);

    const detail = json<JobJson & { history: TimelineJson[] }>(ok(asJson));
    expect(detail).toMatchObject({ id: flakyA, name: 'flaky', state: 'dead', attempts: 2, lastError: { message: 'upstream said no on attempt 2' } });
    expect(detail.history.map((t) => t.to)).toEqual(['pending', 'processing', 'failed', 'pending', 'processing', 'dead']);
    for (const [i, t] of detail.history.entries()) {
      const next = detail.history[i + 1];
      expect(t.durationMs).toBe(next ? Date.parse(next.at) - Date.parse(t.at) : null);
    }

    // One dead job back to pending; then it is no longer dead, so a second retry is refused.
    const retried = json<JobJson>(ok(await runCli(['retry', String(flakyA), '--json', '--db', db])));
    expect(retried).toMatchObject({ id: flakyA, state: 'pending', attempts: 0 });
    const illegal = await runCli(['--db', db, 'retry', String(flakyA)]);
    expect(illegal.code).toBe(1);
    expect(illegal.stdout).toBe('');
    expect(illegal.stderr).toMatch(/^litejobs: error: LJ_ERR_INVALID_TRANSITION: job \d+ is pending: "job\.retry" does not apply\n$/);
    // A custom machine's event without --handlers: the base machine decided, and the error says so.
    const custom = await runCli(['--db', db, 'send', String(flakyA), 'job.hold']);
    expect(custom.code).toBe(1);
    expect(custom.stderr).toBe(
      `litejobs: error: LJ_ERR_INVALID_TRANSITION: job ${flakyA} is pending: "job.hold" does not apply (the base machine decided: a job on a machine of its own needs --handlers <module>)\n`,
    );

    // Every dead job of a name, then every dead job.
    expect(json(ok(await runCli(['retry', '--dead', '--name', 'flaky', '--json', '--db', db])))).toEqual({ retried: 1 });
    expect(json<JobJson[]>(ok(await runCli(['--db', db, 'jobs', '--state', 'dead', '--json']))).map((j) => j.id)).toEqual([other]);
    // Independent changes (the one dead job left; two jobs that are not dead), run at once.
    const [all, cancelled, cancelledText] = await Promise.all([
      runCli(['retry', '--dead', '--db', db]),
      runCli(['cancel', String(flakyB), '--json', '--db', db]),
      runCli(['cancel', String(spare), '--db', db]),
    ]);
    expect(ok(all).stdout).toBe('1 dead job back to pending\n');
    expect(json<JobJson>(ok(cancelled))).toMatchObject({ id: flakyB, state: 'cancelled' });
    expect(ok(cancelledText).stdout).toBe(`job ${spare} (spare) is cancelled\n`);
    const states = json<JobJson[]>(ok(await runCli(['jobs', '--json', '--db', db]))).map((j) => [j.id, j.state]);
    expect(states).toEqual([
      [flakyA, 'pending'],
      [flakyB, 'cancelled'],
      [other, 'pending'],
      [spare, 'cancelled'],
    ]);
  });
});

describe('litejobs pause, resume, stats', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('pause and resume a name or the whole queue; stats counts by state and by name and says what is paused', async () => {
    const db = join(tempFolder(), 'jobs.db');
    ok(await runCli(['enqueue', 'email', '{}', '--db', db]));
    await Promise.all([runCli(['enqueue', 'email', '{}', '--db', db]), runCli(['enqueue', 'report', '{}', '--db', db])]).then((rs) => rs.forEach(ok));
    expect(ok(await runCli(['pause', 'report', '--db', db])).stdout).toBe('paused jobs named report\n');
    expect(json(ok(await runCli(['pause', '--json', '--db', db])))).toEqual({ action: 'pause', name: null, paused: { all: true, names: ['report'] } });

    const [text, stats] = await Promise.all([runCli(['stats', '--db', db]), runCli(['--db', db, 'stats', '--json'])]);
    const lines = ok(text).stdout.split('\n');
    expect(lines[0]).toBe('3 jobs: 3 pending');
    expect(lines[1]).toBe('paused: the whole queue (and by name: report)');
    expect(lines[3]).toMatch(/^NAME\s+PENDING\s+PROCESSING\s+COMPLETED\s+FAILED\s+DEAD\s+CANCELLED\s+TOTAL$/);
    expect(lines[4]).toMatch(/^email\s+2\s+0\s+0\s+0\s+0\s+0\s+2$/);
    expect(lines[5]).toMatch(/^report \(paused\)\s+1\s+0\s+0\s+0\s+0\s+0\s+1$/);
    expect(json(ok(stats))).toEqual({
      total: 3,
      byState: { pending: 3 },
      byName: { email: { pending: 2 }, report: { pending: 1 } },
      paused: { all: true, names: ['report'] },
    });

    expect(ok(await runCli(['resume', 'report', '--db', db])).stdout).toBe('resumed jobs named report (the whole queue is still paused: litejobs resume)\n');
    expect(json(ok(await runCli(['resume', '--json', '--db', db])))).toEqual({ action: 'resume', name: null, paused: { all: false, names: [] } });
  });
});
