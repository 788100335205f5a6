/**
 * `litejobs migrate` across runs: killed with SIGKILL mid-copy, a rerun
 * continues after the last committed batch and ends with every job once
 * (Ctrl+C stops it after the batch under way); a
 * run after the switch-over copies only the jobs added since, whose ids do not
 * collide with those PostgreSQL handed out meanwhile; an id held by another
 * job stops the copy before its batch, and a file changed under the copy
 * fails the check.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueue, type Queue } from '../../src/index.js';
import { CLI_TEST_TIMEOUT, json, runCli, startCli, type CliProcess } from '../helpers/cli.js';
import { pgRows, pgTables, progressRows, sqliteTables } from '../helpers/migrate.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDir } from '../helpers/temp-db.js';

const schema = usePgSchema();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function sqliteQueue(): { path: string; queue: Queue } {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const path = join(dir.dir, 'jobs.db');
  const queue = createQueue({ path, logger: silentLogger });
  cleanups.push(() => queue.close());
  return { path, queue };
}

function pgQueue(name: string): Queue {
  const queue = createQueue({ connection: pgUrl(), schema: name, logger: silentLogger });
  cleanups.push(() => queue.close());
  return queue;
}

async function enqueue(queue: Queue, n: number, name = 'work'): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i += 5000) {
    const items = Array.from({ length: Math.min(5000, n - i) }, (_, k) => ({ name, payload: { n: i + k } }));
    ids.push(...(await queue.enqueueMany(items)).map((r) => r.id));
  }
  return ids;
}

/** The first progress line on stderr: it is written once the first batch has committed. */
function waitForProgress(run: CliProcess): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    run.proc.stderr!.on('data', () => /migrate: \d+\/\d+ jobs/.test(run.stderr()) && resolve());
    run.done.then(() => reject(new Error(`migrate ended before its progress showed: ${run.stderr()}`)), reject);
  });
}

interface Summary {
  copied: number;
  duplicateKeys: Array<{ id: number; key: string; heldBy: number }>;
  history: number;
  skipped: number;
  pass: { from: number; upTo: number; resumed: boolean; firstRun: boolean };
  states: Record<string, { source: number; target: number }>;
  verified: boolean;
}

/**
 * A copy long enough that a signal sent on its first progress line lands
 * mid-copy: 480 batches, each its own PostgreSQL transaction (~1 ms), so
 * the copy runs for about half a second after that line at least.
 */
const COPY_JOBS = 12_000;
const BATCH = 25;

describe('litejobs migrate, run again', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('continues after SIGKILL from the last committed batch: every job once, history once', async () => {
    const { path, queue } = sqliteQueue();
    const ids = await enqueue(queue, COPY_JOBS);
    // History to copy too: every 120th job cancelled.
    for (const id of ids.filter((_, i) => i % 120 === 0)) await queue.cancel(id);
    const name = schema();
    const url = `${pgUrl()}?schema=${name}`;

    const first = startCli(['migrate', '--from', path, '--to', url, '--batch', String(BATCH)]);
    await waitForProgress(first);
    first.proc.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');

    const [{ n, top }] = (await pgRows<{ n: string; top: string }>(`SELECT count(*) AS n, max(id) AS top FROM "${name}".jobs`)) as [{ n: string; top: string }];
    expect(Number(n)).toBeGreaterThan(0);
    expect(Number(n)).toBeLessThan(ids.length);
    // The mark moved in each batch's own transaction: it is exactly where the committed jobs end.
    expect((await progressRows(name)).upto).toBe(Number(top));

    const rerun = await runCli(['migrate', '--from', path, '--to', url, '--batch', String(BATCH), '--json', '--quiet']);
    expect({ code: rerun.code, stderr: rerun.stderr }).toEqual({ code: 0, stderr: '' });
    const summary = json<Summary>(rerun);
    expect(summary).toMatchObject({ copied: ids.length - Number(n), verified: true, pass: { from: 0, upTo: ids.at(-1), resumed: true } });
    expect(summary.states.cancelled).toEqual({ source: 100, target: 100 });
    expect(await pgTables(name)).toEqual(sqliteTables(path));
  });

  it('stops after the batch under way on Ctrl+C (SIGINT), saying how to go on', async () => {
    const { path, queue } = sqliteQueue();
    const ids = await enqueue(queue, COPY_JOBS);
    const name = schema();
    const url = `${pgUrl()}?schema=${name}`;
    const run = startCli(['migrate', '--from', path, '--to', url, '--batch', String(BATCH)]);
    await waitForProgress(run);
    run.proc.kill('SIGINT');
    const ended = await run.done;
    expect({ code: ended.code, stdout: ended.stdout }).toEqual({ code: 1, stdout: '' });
    const line = /litejobs: error: interrupted: (\d+) jobs copied by this run, up to id (\d+); run the same command again to continue\n$/.exec(ended.stderr);
    expect(line, ended.stderr).not.toBeNull();
    const [{ n }] = (await pgRows<{ n: string }>(`SELECT count(*) AS n FROM "${name}".jobs`)) as [{ n: string }];
    expect(Number(line![1])).toBe(Number(n));
    expect((await progressRows(name)).upto).toBe(Number(line![2]));
    expect(Number(n)).toBeLessThan(ids.length);
  });

  it('after the switch-over copies only the jobs added since, and ids never collide with those PostgreSQL hands out', async () => {
    const { path, queue } = sqliteQueue();
    await enqueue(queue, 50);
    const name = schema();
    const url = `${pgUrl()}?schema=${name}`;
    const first = await runCli(['migrate', '--from', path, '--to', url, '--reserve-ids', '1000', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(json<Summary>(first)).toMatchObject({ copied: 50, pass: { from: 0, upTo: 50, firstRun: true } });

    // Producers moved to PostgreSQL; a late one still wrote to the file.
    const pg = pgQueue(name);
    const onPg = await pg.enqueue('work', { on: 'pg' });
    expect(onPg.id).toBe(50 + 1000 + 1);
    const late = await enqueue(queue, 20, 'late');
    await queue.cancel(late[3]!);
    // The same order, enqueued on both sides of the switch: PostgreSQL's stands, the file's is not copied.
    const orderOnPg = await pg.enqueue('order', { n: 7 }, { key: 'order:7' });
    const orderLate = await queue.enqueue('order', { n: 7 }, { key: 'order:7' });

    const catchUp = await runCli(['migrate', '--from', path, '--to', url, '--reserve-ids', '1000', '--json']);
    expect(catchUp.code, catchUp.stderr).toBe(0);
    expect(json<Summary>(catchUp)).toMatchObject({
      copied: 20,
      history: 1,
      skipped: 1,
      duplicateKeys: [{ id: orderLate.id, key: 'order:7', heldBy: orderOnPg.id }],
      verified: true,
      pass: { from: 50, upTo: 71, resumed: false, firstRun: false },
    });
    const copied = await pgTables(name);
    const original = sqliteTables(path);
    const onPgOnly = [String(onPg.id), String(orderOnPg.id)];
    expect(copied.jobs.filter((j) => !onPgOnly.includes(String(j.id)))).toEqual(original.jobs.filter((j) => j.id !== String(orderLate.id)));
    expect(copied.history).toEqual(original.history);
    expect((await pg.getJob(onPg.id)).payload).toEqual({ on: 'pg' });
    expect((await pg.enqueue('work', { on: 'pg', n: 3 })).id).toBe(orderOnPg.id + 1);

    const again = await runCli(['migrate', '--from', path, '--to', url, '--json']);
    expect(json<Summary>(again)).toMatchObject({ copied: 0, skipped: 0, verified: true, pass: { from: 71, upTo: 71 } });
  });

  it('stops before a batch whose id another job holds, writing none of it; a file changed under the copy fails the check', async () => {
    const { path, queue } = sqliteQueue();
    await enqueue(queue, 300);
    const name = schema();
    const url = `${pgUrl()}?schema=${name}`;
    // Another job already has id 150 in the schema.
    await pgQueue(name).ping();
    await pgRows(`INSERT INTO "${name}".jobs (id, name, state, payload, run_at, created_at, updated_at) OVERRIDING SYSTEM VALUE VALUES (150, 'other', 'pending', '{}', 0, 0, 0)`);

    const stopped = await runCli(['migrate', '--from', path, '--to', url, '--batch', '100']);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(/litejobs: error: LJ_ERR_MIGRATE_CONFLICT: job id 150 is already held in .* by another job \("other".*nothing of this batch was written/);
    const held = await pgRows<{ id: string }>(`SELECT id FROM "${name}".jobs ORDER BY id`);
    expect(held.map((r) => Number(r.id))).toEqual([...Array.from({ length: 100 }, (_, i) => i + 1), 150]);
    expect((await progressRows(name)).upto).toBe(100);

    // The other job goes; meanwhile the file changed a job already copied.
    await pgRows(`DELETE FROM "${name}".jobs WHERE id = 150`);
    await queue.cancel(5);
    const checked = await runCli(['migrate', '--from', path, '--to', url, '--batch', '100', '--json']);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(/litejobs: error: LJ_ERR_MIGRATE_VERIFY: the copied jobs \(ids 1 to 300\) do not match the SQLite file by state \(pending: 299 in the SQLite file, 300 copied; cancelled: 1 in the SQLite file, 0 copied\)/);
    const summary = json<Summary>(checked);
    expect(summary).toMatchObject({ copied: 200, verified: false, pass: { from: 0, upTo: 300, resumed: true } });
    expect(summary.states.pending).toEqual({ source: 299, target: 300 });
    expect(summary.states.cancelled).toEqual({ source: 1, target: 0 });
  });
});
