/** Thread pools closed after each test, handler fixtures by name, and a host that records what reaches it. */
import { afterEach } from 'vitest';
import { createThreadPool, type ThreadHost, type ThreadJob, type ThreadPool } from '../../src/engine/run/threads/thread-pool.js';

export function usePools(): (options: { size: number; graceMs?: number }) => ThreadPool {
  const pools: ThreadPool[] = [];
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.close();
  });
  return (options) => {
    const pool = createThreadPool(options);
    pools.push(pool);
    return pool;
  };
}

/** The href of test/fixtures/thread-handlers/<name>.ts. */
export function handlerModule(name: string): string {
  return new URL(`../fixtures/thread-handlers/${name}.ts`, import.meta.url).href;
}

let nextJobId = 1;

export function threadJob(name: string, payload: unknown, extra: Partial<ThreadJob> = {}): ThreadJob {
  return { module: handlerModule(name), payload: JSON.stringify(payload), jobId: nextJobId++, name, attempt: 1, workerId: 'w-test', ...extra };
}

export interface LogLine {
  level: string;
  obj: Record<string, unknown> | undefined;
  msg: string | undefined;
}

export interface RecordingHost extends ThreadHost {
  logs: LogLine[];
  heartbeats: number;
  progressValues: string[];
}

/** Answers true unless told otherwise; `onLog` sees each line as it arrives. */
export function recordingHost(answers: Partial<Pick<ThreadHost, 'heartbeat' | 'progress'>> & { onLog?: (line: LogLine) => void } = {}): RecordingHost {
  const host: RecordingHost = {
    logs: [],
    heartbeats: 0,
    progressValues: [],
    heartbeat() {
      host.heartbeats++;
      return answers.heartbeat ? answers.heartbeat() : Promise.resolve(true);
    },
    progress(value) {
      host.progressValues.push(value);
      return answers.progress ? answers.progress(value) : Promise.resolve(true);
    },
    log(level, obj, msg) {
      const line = { level, obj, msg };
      host.logs.push(line);
      answers.onLog?.(line);
    },
  };
  return host;
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A signal that never aborts. */
export const never = (): AbortSignal => new AbortController().signal;
