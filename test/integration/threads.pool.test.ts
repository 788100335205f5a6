import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createThreadPool } from '../../src/engine/run/threads/thread-pool.js';
import { deferred, never, recordingHost, threadJob, usePools, type Deferred } from '../helpers/thread-pool.js';
import { nodeArgs } from '../helpers/node-args.js';

const pool = usePools();
const osThreads = (): number => readdirSync('/proc/self/task').length;

describe('the thread pool', () => {
  it('runs synchronous CPU work off the main thread: the main event loop keeps ticking', async () => {
    const p = pool({ size: 1 });
    const started = deferred();
    const host = recordingHost({
      progress: async () => {
        started.resolve();
        return true;
      },
    });
    const outcome = p.run(threadJob('busy', { ms: 1500 }), host, never());
    await started.promise;
    let ticks = 0;
    let last = performance.now();
    let maxGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      ticks++;
    }, 20);
    const settled = await outcome;
    clearInterval(timer);
    expect(settled.kind).toBe('completed');
    expect(JSON.parse((settled as { result: string }).result)).toMatchObject({ iterations: expect.any(Number) });
    // On the main thread the loop would block every tick for 1.5 s; here a lease timer would keep firing.
    expect(ticks).toBeGreaterThan(25);
    expect(maxGap).toBeLessThan(300);
  });

  it('never runs more than `size` jobs at once; waiting jobs start in order; all complete', async () => {
    // What one handler thread costs in OS threads (2 from source: the thread and its tsx loader's hooks thread).
    const warm = createThreadPool({ size: 1 });
    await warm.run(threadJob('echo', 'warm-up'), recordingHost(), never()); // and Node's own lazily started threads
    await warm.close();
    const base = osThreads();
    const p = pool({ size: 2 });
    await p.run(threadJob('echo', 'warm-up'), recordingHost(), never());
    const threadsBefore = osThreads();
    const perThread = threadsBefore - base;
    expect(perThread).toBeGreaterThan(0);
    const releases: Array<Deferred<boolean>> = [];
    const starts: Array<Deferred<void>> = [];
    for (let i = 0; i < 5; i++) {
      releases.push(deferred<boolean>());
      starts.push(deferred());
    }
    const order: number[] = [];
    let running = 0;
    let maxRunning = 0;
    const outcomes = releases.map((release, index) => {
      const host = recordingHost({
        heartbeat: () => release.promise,
        onLog: () => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          order.push(index);
          starts[order.length - 1]!.resolve();
        },
      });
      return p.run(threadJob('gate', { index }), host, never()).then((outcome) => {
        running--;
        return outcome;
      });
    });
    try {
      await starts[1]!.promise;
      expect(p.busy()).toBe(2);
      // A thread starts when a job takes a slot: past its bound the pool would have started 4 more by now, not 1.
      expect(osThreads() - threadsBefore).toBe(perThread);
      // Release in the order they started, one at a time: each release frees the slot for exactly one more.
      for (let k = 0; k < 5; k++) {
        releases[order[k]!]!.resolve(true);
        if (k + 2 < 5) await starts[k + 2]!.promise;
      }
    } finally {
      for (const release of releases) release.resolve(true); // lets close() end a failed test
    }
    expect(await Promise.all(outcomes)).toEqual([0, 1, 2, 3, 4].map((i) => ({ kind: 'completed', result: String(i) })));
    expect(maxRunning).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(p.busy()).toBe(0);
  });

  it('starts no thread before the first job, reuses its threads, and close() ends them all', async () => {
    const warm = createThreadPool({ size: 1 });
    await warm.run(threadJob('echo', 1), recordingHost(), never()); // Node's own lazily started threads
    await warm.close();
    const before = osThreads();
    const p = createThreadPool({ size: 2 });
    expect(osThreads()).toBe(before);
    const first = await p.run(threadJob('echo', 1), recordingHost(), never());
    const withOne = osThreads();
    const second = await p.run(threadJob('echo', 2), recordingHost(), never());
    const threadOf = (o: typeof first) => (JSON.parse((o as { result: string }).result) as { threadId: number }).threadId;
    expect(threadOf(second)).toBe(threadOf(first));
    expect(osThreads()).toBeGreaterThan(before);
    expect(osThreads()).toBe(withOne); // the second job reused the idle thread
    await p.close();
    expect(osThreads()).toBe(before);
    await expect(p.run(threadJob('echo', 3), recordingHost(), never())).rejects.toMatchObject({ code: 'LJ_ERR_QUEUE_CLOSED' });
  });

  it('close() lets a running job finish first', async () => {
    const p = pool({ size: 1 });
    const release = deferred<boolean>();
    const started = deferred();
    const host = recordingHost({ heartbeat: () => release.promise, onLog: () => started.resolve() });
    const outcome = p.run(threadJob('gate', { index: 9 }), host, never());
    await started.promise;
    let closed = false;
    const closing = p.close().then(() => (closed = true));
    release.resolve(true);
    expect(await outcome).toEqual({ kind: 'completed', result: '9' });
    await closing;
    expect(closed).toBe(true);
    expect(p.busy()).toBe(0);
  });

  it('an idle pool does not keep the process alive', async () => {
    const script = fileURLToPath(new URL('../fixtures/thread-pool-idle.ts', import.meta.url));
    const child = spawn(process.execPath, nodeArgs(script), { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    clearTimeout(kill);
    expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(JSON.parse(stdout)).toEqual({ kind: 'completed', busy: 0 });
  });
});
