/** The `litejobs` command as users run it: src/cli/bin.ts in a child process through tsx. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEachTest } from './after-each.js';
import { nodeArgs } from './node-args.js';

export const CLI = fileURLToPath(new URL('../../src/cli/bin.ts', import.meta.url));

/**
 * For tests that start the CLI several times: each start loads the engine
 * through tsx (about 1.5 s alone, several seconds on two busy cores).
 */
export const CLI_TEST_TIMEOUT = 120_000;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  proc: ChildProcess;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout matches `pattern` (rejects if the process ends first or after `ms`). */
  waitForOutput(pattern: RegExp, ms?: number): Promise<void>;
  done: Promise<CliResult>;
}

const running: ChildProcess[] = [];

afterEachTest(() => {
  for (const p of running.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

/** Starts `litejobs <args>`; `LITEJOBS_DB` is unset unless `env` gives it. */
export function startCli(args: readonly string[], options: { env?: Record<string, string>; cwd?: string } = {}): CliProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...options.env };
  if (!options.env?.LITEJOBS_DB) delete env.LITEJOBS_DB;
  delete env.LITEJOBS_LOG_LEVEL;
  const proc = spawn(process.execPath, nodeArgs(CLI, ...args), { env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(proc);
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  proc.stdout!.setEncoding('utf8').on('data', (s: string) => {
    stdout += s;
    for (const l of [...listeners]) l();
  });
  proc.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const done = new Promise<CliResult>((resolve, reject) => {
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      for (const l of [...listeners]) l();
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    proc,
    stdout: () => stdout,
    stderr: () => stderr,
    done,
    waitForOutput(pattern, ms = 60_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(stdout)) finish(resolve);
          else if (proc.exitCode !== null || proc.signalCode !== null) finish(() => reject(new Error(`litejobs ${args.join(' ')} ended before ${pattern}; stderr: ${stderr}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`no ${pattern} within ${ms} ms; stdout: ${stdout}`))), ms);
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Runs `litejobs <args>` to its end. */
export function runCli(args: readonly string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/** Parses stdout as the one JSON document a `--json` command prints. */
export function json<T = unknown>(result: CliResult): T {
  return JSON.parse(result.stdout) as T;
}
