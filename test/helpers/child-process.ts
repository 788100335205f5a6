/**
 * Child processes running test/fixtures/worker-process.ts (or another fixture),
 * speaking JSON lines on stdout; every child still alive after a test is
 * SIGKILLed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEachTest } from './after-each.js';
import { nodeArgs } from './node-args.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/worker-process.ts', import.meta.url));

export interface Message {
  type: string;
  [key: string]: unknown;
}

export interface Child {
  proc: ChildProcess;
  messages: Message[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first message (already seen or to come) matching `pred`; rejects if the child exits first. */
  waitFor(pred: (m: Message) => boolean, ms: number): Promise<Message>;
}

const children: Child[] = [];

export function spawnChild(db: string, mode: 'work' | 'enqueue', leaseMs?: number): Child {
  return spawnFixture(FIXTURE, db, mode, ...(leaseMs === undefined ? [] : [String(leaseMs)]));
}

/** Any fixture script that speaks JSON lines on stdout, run like worker-process.ts. */
export function spawnFixture(script: string, ...args: string[]): Child {
  const proc = spawn(process.execPath, nodeArgs(script, ...args), { stdio: ['ignore', 'pipe', 'pipe'] });
  const messages: Message[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    messages.push(JSON.parse(line) as Message);
    for (const w of [...waiters]) w();
  });
  proc.stderr!.setEncoding('utf8').on('data', (s: string) => stderr.push(s));
  const exited = once(proc, 'exit').then(([code, signal]) => {
    for (const w of [...waiters]) w();
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  let done = false;
  void exited.then(() => (done = true));
  const child: Child = {
    proc,
    messages,
    stderr,
    exited,
    waitFor(pred, ms) {
      return new Promise<Message>((resolve, reject) => {
        const check = () => {
          const m = messages.find(pred);
          if (m) finish(() => resolve(m));
          else if (done || proc.exitCode !== null || proc.signalCode !== null) {
            finish(() => reject(new Error(`child ${proc.pid} exited before the awaited message; stderr: ${stderr.join('')}`)));
          }
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`child ${proc.pid}: no awaited message within ${ms} ms`))), ms);
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
  };
  children.push(child);
  return child;
}

afterEachTest(() => {
  for (const c of children.splice(0)) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
});
