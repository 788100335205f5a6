/**
 * `litejobs stats --watch` until Ctrl+C, and `litejobs doctor` on a healthy
 * file, on a file a crashed worker left an expired lease in, and on a file
 * whose integrity check fails.
 */
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { openSync, writeSync, closeSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueue } from '../../src/index.js';
import { CLI_TEST_TIMEOUT, json, runCli, startCli } from '../helpers/cli.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDir } from '../helpers/temp-db.js';
import { nodeArgs } from '../helpers/node-args.js';
import { waitFor } from '../helpers/wait.js';

const WRITER = fileURLToPath(new URL('../fixtures/cli-writer.ts', import.meta.url));

let cleanup: (() => void) | undefined;
let holder: ChildProcess | undefined;
afterEach(() => {
  if (holder && holder.exitCode === null && holder.signalCode === null) holder.kill('SIGKILL');
  cleanup?.();
});

function dbPath(): string {
  const dir = tempDir();
  cleanup = dir.cleanup;
  return join(dir.dir, 'jobs.db');
}

async function seed(db: string, names: readonly string[]): Promise<void> {
  const queue = createQueue({ path: db, logger: silentLogger });
  await queue.enqueueMany(names.map((name) => ({ name, payload: {} })));
  await queue.close();
}

interface Diagnosis {
  ok: boolean;
  store: string;
  walBytes: number;
  pageCount: number;
  cacheBytes: number;
  expiredLeases: number;
  integrity?: string[];
}

describe('litejobs stats --watch', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('draws a frame every interval and exits 0 on SIGINT', async () => {
    const db = dbPath();
    await seed(db, ['email', 'email', 'report']);
    const watch = startCli(['stats', '--watch', '--interval', '100', '--db', db]);
    await watch.waitForOutput(/(litejobs stats at [^\n]+\n[\s\S]*?){2}/);
    watch.proc.kill('SIGINT');
    const end = await watch.done;
    expect({ code: end.code, signal: end.signal, stderr: end.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    const frames = end.stdout.split(/^litejobs stats at /m).slice(1);
    expect(frames.length).toBeGreaterThanOrEqual(2);
    for (const frame of frames.slice(0, 2)) {
      expect(frame).toMatch(/\(every 100 ms; Ctrl\+C to stop\)\n\n3 jobs: 3 pending\npaused: nothing\n/);
      expect(frame).toMatch(/\nemail\s+2\s+0\s+0\s+0\s+0\s+0\s+2\n/);
    }
  });
});

describe('litejobs doctor', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('on a healthy file: exit 0, integrity ok, WAL and page-cache figures, no expired lease', async () => {
    const db = dbPath();
    await seed(db, ['email']);
    const [text, asJson] = await Promise.all([runCli(['doctor', '--db', db]), runCli(['--db', db, 'doctor', '--json'])]);
    expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(/^store +sqlite\n/);
    expect(text.stdout).toMatch(/\nWAL +\d+(\.\d)? (B|KiB|MiB)\n/);
    expect(text.stdout).toMatch(/\npage cache +64\.0 MiB\n/);
    expect(text.stdout).toMatch(/\njournal mode +wal\n/);
    expect(text.stdout).toMatch(/\nexpired leases +0\n/);
    expect(text.stdout).toMatch(/\nintegrity +ok\n$/);
    expect(asJson.code).toBe(0);
    expect(json<Diagnosis>(asJson)).toMatchObject({ ok: true, store: 'sqlite', expiredLeases: 0, integrity: ['ok'], cacheBytes: 64 * 1024 * 1024 });
  });

  it('reports the expired lease a killed worker left (exit 0: a running queue takes it back)', async () => {
    const db = dbPath();
    holder = spawn(process.execPath, nodeArgs(WRITER, db, 'hold'), { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(createInterface({ input: holder.stdout! }), 'line')) as [string];
    const { id } = JSON.parse(line) as { id: number };
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    // Its 100 ms lease runs out with nobody to renew it.
    const file = new Database(db, { readonly: true });
    await waitFor(() => (file.prepare('SELECT locked_until FROM jobs WHERE id = ?').pluck().get(id) as number) < Date.now());
    file.close();

    const [text, asJson] = await Promise.all([runCli(['doctor', '--db', db]), runCli(['doctor', '--json', '--db', db])]);
    expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(/\nexpired leases +1 \(jobs held by a worker that stopped renewing its lease; a running queue takes them back\)\n/);
    expect(json<Diagnosis>(asJson)).toMatchObject({ ok: true, expiredLeases: 1 });
  });

  it('exit 1 with one line on stderr when the integrity check fails', async () => {
    const db = dbPath();
    await seed(db, ['email', 'email']);
    // Break the page header of the history index's root page: the file still opens, the check finds it.
    const file = new Database(db, { readonly: true });
    const root = file.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'job_history_job'").pluck().get() as number;
    const pageSize = file.pragma('page_size', { simple: true }) as number;
    file.close();
    const fd = openSync(db, 'r+');
    writeSync(fd, Buffer.from([0xff]), 0, 1, (root - 1) * pageSize);
    closeSync(fd);

    const [text, asJson] = await Promise.all([runCli(['doctor', '--db', db]), runCli(['doctor', '--json', '--db', db])]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/\nintegrity +FAILED\n {4}\*\*\* in database main \*\*\*\n {4}.*page \d+/);
    expect(text.stderr).toMatch(/^litejobs: error: integrity check failed: [^\n]+\n$/);
    expect(asJson.code).toBe(1);
    expect(json<Diagnosis>(asJson)).toMatchObject({ ok: false });
  });
});
