/** Runs a bench/children/*.ts script in a child Node process (through tsx), with an IPC channel. */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './machine-info.js';

const LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

export function forkChild(script: string, args: string[], nodeFlags: string[] = []): ChildProcess {
  return fork(join(ROOT, 'bench/children', script), args, {
    execArgv: ['--import', LOADER, ...nodeFlags],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** The next IPC message from the child that satisfies `match`. */
export function nextMessage<T>(child: ChildProcess, match: (m: unknown) => m is T, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`child ${child.pid}: no message within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: unknown) => match(m) && done(undefined, m);
    const onExit = (code: number | null) => done(new Error(`child ${child.pid} exited with code ${code}`));
    function done(err: Error | undefined, m?: T) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(m!);
    }
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

export function exited(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
