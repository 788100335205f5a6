/**
 * The `npm start` demo as a user runs it: a real child process, a real file
 * in its working folder, run twice (no duplicates), and stopped by SIGTERM
 * mid-run (exits 0, nothing lost).
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-db.js';
import { tsxArgs } from '../helpers/tsx.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const demo = join(root, 'src/cli/demo.ts');

function runDemo(cwd: string, opts: { killOn?: RegExp } = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, tsxArgs(demo), { cwd, env: { ...process.env, LITEJOBS_LOG_LEVEL: 'debug', NO_COLOR: '1' } });
    let out = '';
    let killed = false;
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (opts.killOn && !killed && opts.killOn.test(out)) {
        killed = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

function jobsIn(cwd: string) {
  const db = new Database(join(cwd, 'litejobs.db'), { readonly: true });
  try {
    return db.prepare('SELECT name, state, attempts FROM jobs ORDER BY id').all() as Array<{ name: string; state: string; attempts: number }>;
  } finally {
    db.close();
  }
}

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('npm start (the demo)', () => {
  it('runs the four demo jobs to completion, fail-me on its third attempt, and a second run adds nothing', async () => {
    const dir = tempDir();
    cleanup = dir.cleanup;
    const first = await runDemo(dir.dir);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toContain('all demo jobs finished');
    expect(first.out).toMatch(/processing → failed/);
    const jobs = jobsIn(dir.dir);
    expect(jobs).toEqual([
      { name: 'send-welcome-email', state: 'completed', attempts: 1 },
      { name: 'generate-monthly-report', state: 'completed', attempts: 1 },
      { name: 'sync-webhook', state: 'completed', attempts: 1 },
      { name: 'fail-me', state: 'completed', attempts: 3 },
    ]);
    const second = await runDemo(dir.dir);
    expect(second.code, second.out).toBe(0);
    expect(second.out).toContain('already enqueued (same key)');
    expect(jobsIn(dir.dir)).toEqual(jobs);
  }, 60_000);

  it('SIGTERM mid-run drains running jobs, exits 0, and the next run finishes the rest', async () => {
    const dir = tempDir();
    cleanup = dir.cleanup;
    const stopped = await runDemo(dir.dir, { killOn: /pending → processing/ });
    expect(stopped.code, stopped.out).toBe(0);
    expect(stopped.out).toContain('draining running jobs');
    const after = jobsIn(dir.dir);
    expect(after).toHaveLength(4);
    expect(after.filter((j) => j.state === 'processing')).toEqual([]);
    const resumed = await runDemo(dir.dir);
    expect(resumed.code, resumed.out).toBe(0);
    expect(jobsIn(dir.dir).map((j) => j.state)).toEqual(['completed', 'completed', 'completed', 'completed']);
  }, 60_000);
});
