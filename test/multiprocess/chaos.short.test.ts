/**
 * The chaos check, short: the real tool (`npm run chaos`) in a child process,
 * with ten worker kills close together. It must pass, and its line of
 * figures must show what passing means: nothing lost, nothing completed
 * twice, no overlapping runs, the file intact, and the kills really done.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tsxArgs } from '../helpers/tsx.js';

const TOOL = fileURLToPath(new URL('../../bench/chaos/run.ts', import.meta.url));
const KILLS = 10;

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); // its own children follow it (parent-watch.ts)
});

function figures(line: string): Record<string, string> {
  return Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
}

describe('npm run chaos, short', () => {
  it(
    `passes ${KILLS} worker kills with every acknowledged job completed exactly once`,
    async () => {
      const started = Date.now();
      // Short pauses between kills and a short drain limit keep the whole run near 15–25 s.
      child = spawn(
        process.execPath,
        tsxArgs(TOOL, '--kills', String(KILLS), '--interval', '300-900', '--drain-timeout', '20', '--quiet'),
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
      child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
      const [code] = (await once(child, 'exit')) as [number | null];

      const report = `exit ${code}\nstdout:\n${stdout}\nstderr:\n${stderr}`;
      expect(code, report).toBe(0);
      const lines = stdout.trim().split('\n').filter((l) => l.startsWith('chaos: '));
      expect(lines, report).toHaveLength(1);
      const f = figures(lines[0]!);
      expect(f, report).toMatchObject({ lost: '0', stuck: '0', doubled: '0', overlaps: '0', unrun: '0', crashes: '0', integrity: 'ok', verdict: 'PASS' });
      expect(Number(f.kills), report).toBeGreaterThanOrEqual(KILLS);
      expect(Number(f.acknowledged), report).toBeGreaterThan(0);
      expect(Number(f.completed), report).toBeGreaterThanOrEqual(Number(f.acknowledged));
      console.info(`[chaos.short] ${lines[0]} (test ${((Date.now() - started) / 1000).toFixed(1)}s)`);
    },
    90_000,
  );
});
