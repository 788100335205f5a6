/**
 * `litejobs backup` of a live, busy database: another process keeps
 * enqueueing and completing jobs throughout, and the copy opens on its own
 * and holds every job that process had committed before the backup began.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-db.js';
import { nodeArgs } from '../helpers/node-args.js';

const WRITER = fileURLToPath(new URL('../fixtures/cli-writer.ts', import.meta.url));
/** Pages the store's backup copies per step (src/store/sqlite/admin.ts), at the default 4 KiB page size. */
const BYTES_PER_STEP = 1024 * 4096;

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe('litejobs backup', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('copies a database another process keeps writing to, with every job committed before it began', async () => {
    const dir = tempDir();
    const db = join(dir.dir, 'jobs.db');
    const dest = join(dir.dir, 'copy.db');
    const writer = spawn(process.execPath, nodeArgs(WRITER, db, 'busy'), { stdio: ['ignore', 'pipe', 'pipe'] });
    stops.push(() => writer.kill('SIGKILL'), dir.cleanup);
    let stderr = '';
    writer.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const committed: number[] = [];
    let batches = 0;
    const enough = new Promise<void>((resolve, reject) => {
      createInterface({ input: writer.stdout! }).on('line', (line) => {
        committed.push(...(JSON.parse(line) as { ids: number[] }).ids);
        // The bulk batch, then a few rounds: the writer is enqueueing and completing jobs now.
        if (++batches === 5) resolve();
      });
      writer.on('exit', () => reject(new Error(`writer exited: ${stderr}`)));
    });
    await enough;
    const before = new Set(committed);

    const backup = await runCli(['backup', dest, '--db', db]);
    expect({ code: backup.code, stderr: backup.stderr }).toEqual({ code: 0, stderr: '' });
    const summary = /^backup written to (.+): ([\d.]+) MiB, (\d+) jobs\n$/.exec(backup.stdout);
    expect(summary, backup.stdout).not.toBeNull();
    expect(summary![1]).toBe(dest);
    expect(writer.exitCode).toBeNull(); // it was writing all along

    const copy = new Database(dest, { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      const ids = new Set(copy.prepare('SELECT id FROM jobs').pluck().all() as number[]);
      expect([...before].filter((id) => !ids.has(id))).toEqual([]);
      expect(ids.size).toBe(Number(summary![3]));
      // Larger than two steps of the copy: commits landed between steps and did not restart it.
      expect(Number(summary![2]) * 1024 * 1024).toBeGreaterThan(2 * BYTES_PER_STEP);
    } finally {
      copy.close();
    }

    // The copy exists now: a second backup to it is refused unless --force.
    const again = await runCli(['--db', db, 'backup', dest]);
    expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 1, stdout: '' });
    expect(again.stderr).toMatch(/^litejobs: error: .*copy\.db exists: choose another file, or --force to overwrite it\n$/);
  });
});
