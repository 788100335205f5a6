/**
 * The chaos check's child processes: started from TypeScript through tsx's
 * loader, or as JavaScript when this module runs compiled (the test suite's
 * compiled tree), each with a lifetime record that
 * the verdict reads: when it was spawned, when it was SIGKILLed, when it
 * exited and how.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ProcessLifetime } from './verdict.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const LOADER = pathToFileURL(fileURLToPath(new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url))).href;
const COMPILED = import.meta.url.endsWith('.js');
/** Kept per child for a crash report: the tail of its stderr is enough. */
const STDERR_KEEP = 16_384;

export interface ChaosChild {
  proc: ChildProcess;
  life: ProcessLifetime;
  stderr(): string;
  /** The messages it printed on stdout (JSON lines). */
  messages: Array<Record<string, unknown>>;
  exited: Promise<void>;
}

export function spawnChaosChild(role: ProcessLifetime['role'], label: string, config: object): ChaosChild {
  const spawnedAt = Date.now();
  const entry = COMPILED ? [`${HERE}${role}.js`] : ['--import', LOADER, `${HERE}${role}.ts`];
  const proc = spawn(process.execPath, [...entry, JSON.stringify(config)], {
    // stdin: a pipe that closes when this process dies, so that the child ends too (parent-watch.ts).
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const life: ProcessLifetime = {
    proc: label,
    role,
    pid: proc.pid ?? -1,
    spawnedAt,
    killedAt: null,
    stopRequested: false,
    exitedAt: null,
    exitCode: null,
    signal: null,
  };
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (s: string) => {
    err = (err + s).slice(-STDERR_KEEP);
  });
  const messages: Array<Record<string, unknown>> = [];
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    try {
      messages.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      err = `${err}stdout: ${line}\n`.slice(-STDERR_KEEP);
    }
  });
  const exited = once(proc, 'exit').then(([code, signal]) => {
    life.exitedAt = Date.now();
    life.exitCode = code as number | null;
    life.signal = signal as string | null;
  });
  return { proc, life, stderr: () => err, messages, exited };
}

export function isAlive(c: ChaosChild): boolean {
  return c.life.exitedAt === null;
}

/** SIGKILL now; the kill time is taken once the signal is sent, so no run of the process can start after it. */
export function killChild(c: ChaosChild): void {
  if (!isAlive(c)) return;
  c.proc.kill('SIGKILL');
  c.life.killedAt = Date.now();
}

/** Resolves when the child has printed a message of `type`; rejects if it exits first or after `ms`. */
export function waitForMessage(c: ChaosChild, type: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + ms;
    const check = () => {
      if (c.messages.some((m) => m.type === type)) return resolve();
      if (!isAlive(c)) return reject(new Error(`${c.life.proc} exited before "${type}": ${c.stderr().slice(-2000)}`));
      if (Date.now() > deadline) return reject(new Error(`${c.life.proc}: no "${type}" within ${ms} ms`));
      setTimeout(check, 20);
    };
    check();
  });
}

/**
 * SIGTERM, then up to `ms` for a clean exit; a child still running then is
 * SIGKILLed and shows in the verdict as a process that did not stop cleanly.
 */
export async function stopChild(c: ChaosChild, ms: number): Promise<void> {
  if (!isAlive(c)) return;
  c.life.stopRequested = true;
  c.proc.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  if ((await Promise.race([c.exited, late])) === 'late') {
    c.proc.kill('SIGKILL');
    await c.exited;
  }
  clearTimeout(timer);
}
