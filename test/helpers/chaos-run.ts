/**
 * Runs the real chaos tool (`npm run chaos`) in a child process and reads its
 * one line of figures; the child is SIGKILLed after each test if it still
 * runs (its own children follow it: bench/chaos/parent-watch.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { nodeArgs } from './node-args.js';

const TOOL = fileURLToPath(new URL('../../bench/chaos/run.ts', import.meta.url));

/** The figures of a passing run (`name=value` pairs of its line), its line, and the whole output for failure messages. */
export interface ChaosRun {
  figures: Record<string, string>;
  line: string;
  report: string;
}

export function useChaosTool(): (args: readonly string[]) => Promise<ChaosRun> {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return async (args) => {
    child = spawn(process.execPath, nodeArgs(TOOL, ...args, '--quiet'), { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const [code] = (await once(child, 'exit')) as [number | null];
    const report = `exit ${code}\nstdout:\n${stdout}\nstderr:\n${stderr}`;
    expect(code, report).toBe(0);
    const lines = stdout.trim().split('\n').filter((l) => l.startsWith('chaos: '));
    expect(lines, report).toHaveLength(1);
    const figures = Object.fromEntries([...lines[0]!.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
    return { figures, line: lines[0]!, report };
  };
}
