/**
 * What the CLI draws on a terminal, through runCli() with terminal-like
 * streams on a real file: the backup's progress bar on stderr, and the
 * watch's redraw in place (cursor up over the last frame) until Ctrl+C.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import { createQueue } from '../../src/index.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDir } from '../helpers/temp-db.js';
import { waitFor } from '../helpers/wait.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function terminal(): CliIO & { out: string[]; err: string[]; interrupt(): void } {
  const out: string[] = [];
  const err: string[] = [];
  const handlers = new Set<() => void>();
  return {
    out,
    err,
    stdout: { isTTY: true, write: (text: string) => out.push(text) },
    stderr: { isTTY: true, write: (text: string) => err.push(text) },
    onInterrupt(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    interrupt: () => {
      for (const h of [...handlers]) h();
    },
  };
}

async function seeded(jobs: number): Promise<string> {
  const dir = tempDir();
  cleanup = dir.cleanup;
  const db = join(dir.dir, 'jobs.db');
  const queue = createQueue({ path: db, logger: silentLogger });
  await queue.enqueueMany(Array.from({ length: jobs }, (_, i) => ({ name: 'email', payload: { i, pad: 'x'.repeat(1000) } })));
  await queue.close();
  return db;
}

describe('the CLI on a terminal', () => {
  it('backup draws a progress bar on stderr that ends at 100 % and a new line', async () => {
    const db = await seeded(5000);
    const io = terminal();
    const code = await runCli(['backup', join(db, '..', 'copy.db'), '--db', db], io);
    expect(code).toBe(0);
    const bar = io.err.join('');
    const frames = bar.split('\r').filter(Boolean);
    // More than one step of 1024 pages: the bar moved.
    expect(frames.length).toBeGreaterThan(1);
    for (const frame of frames.slice(0, -1)) expect(frame).toMatch(/^\[[#-]{30}\] \d+% of \d+ pages$/);
    expect(frames.at(-1)).toMatch(/^\[#{30}\] 100% of \d+ pages\n$/);
    expect(io.out.join('')).toMatch(/^backup written to .*copy\.db: [\d.]+ MiB, 5000 jobs\n$/);
  });

  it('stats --watch redraws over the last frame, and stops on Ctrl+C with exit 0', async () => {
    const db = await seeded(3);
    const io = terminal();
    const done = runCli(['stats', '--watch', '--interval', '50', '--db', db], io);
    await waitFor(() => io.out.length >= 5); // frame, (cursor up + frame) × 2
    io.interrupt();
    expect(await done).toBe(0);
    const [first, up] = io.out;
    const lines = first!.split('\n').length - 1;
    expect(first).toMatch(/^litejobs stats at .*\n\n3 jobs: 3 pending\n/);
    expect(up).toBe(`\x1b[${lines}A\x1b[J`);
    expect(io.out[2]).toMatch(/^litejobs stats at /);
  });

  it('never prints a control character from the data: escape sequences in names, keys and errors are shown escaped', async () => {
    const dir = tempDir();
    cleanup = dir.cleanup;
    const db = join(dir.dir, 'q.db');
    const evil = 'evil\u001b]0;pwned\u0007\u001b[2J';
    const queue = createQueue({ path: db, logger: silentLogger });
    const { id } = await queue.enqueue(evil, {}, { key: `k\u001b[31m` });
    await queue.close();
    for (const args of [['jobs'], ['job', String(id)], ['stats'], ['job', '999']]) {
      const io = terminal();
      await runCli([...args, '--db', db], io);
      const printed = [...io.out, ...io.err].join('');
      // biome-ignore lint/suspicious/noControlCharactersInRegex: what this test looks for
      expect([args.join(' '), /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(printed)]).toEqual([args.join(' '), false]);
    }
    const io = terminal();
    await runCli(['jobs', '--db', db], io);
    expect(io.out.join('')).toContain('evil\\x1b]0;pwned\\x07\\x1b[2J');
  });
});

