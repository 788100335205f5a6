/**
 * Waiting for another process's write lock must not block the event loop:
 * SQLite's own busy handler sleeps on the calling thread, so the store does
 * not let SQLite wait and retries from the event loop until `busyTimeout`
 * (src/store/sqlite/guard.ts). A child
 * process (test/fixtures/hold-write-lock.ts) holds the lock with BEGIN
 * IMMEDIATE while this process enqueues.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { getPriority, setPriority } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nodeArgs } from '../helpers/node-args.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/hold-write-lock.ts', import.meta.url));

interface Holder {
  proc: ChildProcess;
  /** Resolves with the child's `committed` line. */
  committed: Promise<{ heldMs: number }>;
  /** Asks the child to commit now. */
  release(): void;
}

const holders: ChildProcess[] = [];
afterEach(() => {
  for (const p of holders.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

/** Starts a child that holds the write lock of `path` for `ms` (or until released); resolves once it holds it. */
async function holdWriteLock(path: string, ms: number): Promise<Holder> {
  const proc = spawn(process.execPath, nodeArgs(FIXTURE, path, String(ms)), { stdio: ['pipe', 'pipe', 'pipe'] });
  holders.push(proc);
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const lines = createInterface({ input: proc.stdout! });
  const waiters = new Map<string, (m: Record<string, unknown>) => void>();
  const exited = new Promise<never>((_, reject) =>
    proc.once('exit', (code, signal) => reject(new Error(`lock holder exited (${code ?? signal}) before its message; stderr: ${stderr}`))),
  );
  lines.on('line', (line) => {
    const m = JSON.parse(line) as Record<string, unknown>;
    waiters.get(m.type as string)?.(m);
  });
  const message = (type: string) => Promise.race([new Promise<Record<string, unknown>>((resolve) => waiters.set(type, resolve)), exited]);
  const locked = message('locked');
  const committed = message('committed') as Promise<{ heldMs: number }>;
  committed.catch(() => {}); // awaited by the test that needs it
  await locked;
  return { proc, committed, release: () => proc.stdin!.write('commit\n') };
}

const fx = useQueues();
const ms = (ns: number) => ns / 1e6;

/**
 * A full garbage collection, now. The worker runs file after file in one
 * process, so its heap is large by the time this file runs, and a major
 * collection landing in the measured wait would be taken for the store's
 * blocking (seen in the whole suite under load: p99 80–90 ms, p50 ~10 ms).
 */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * Runs `fn` with this process scheduled ahead of the machine's other work
 * (nice −10, where permitted): what is measured is this process's own
 * blocking, not the CPU that the suite's other files take meanwhile.
 */
async function whileFavoured<T>(fn: () => Promise<T>): Promise<T> {
  const before = getPriority();
  try {
    setPriority(-10);
  } catch {
    // not permitted: measure at the usual priority
  }
  try {
    return await fn();
  } finally {
    try {
      setPriority(before);
    } catch {
      // lowering back needs no permission; nothing to do if it fails
    }
  }
}

describe('an enqueue waiting for another process\'s write lock', () => {
  // Timing on a shared machine: a regression blocks for the whole hold (p99
  // ≈ 1.5 s) on every attempt, another process's load only now and then.
  it('leaves the event loop free while it waits (p99 delay < 50 ms), and lands once the lock is released', { retry: 1 }, async () => {
    const HOLD_MS = 1500;
    const q = fx.open({ busyTimeout: 5000 });
    const holder = await holdWriteLock(fx.path(), HOLD_MS);

    // The monitor records the interval between two of its own 10 ms ticks, from
    // its second tick on: a loop blocked before that is not seen, and a block
    // is recorded by the first tick after it. Hence a tick's margin each side.
    const ticks = () => new Promise((resolve) => setTimeout(resolve, 25));
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const { id, waited } = await whileFavoured(async () => {
      collectGarbage();
      delay.enable();
      await ticks();
      const started = performance.now();
      const { id } = await q.enqueue('j', { n: 1 });
      const waited = performance.now() - started;
      await ticks();
      delay.disable();
      return { id, waited };
    });

    const { heldMs } = await holder.committed;
    expect(heldMs).toBeGreaterThanOrEqual(HOLD_MS);
    // The enqueue really met the lock: it resolved only after most of the hold.
    expect(waited).toBeGreaterThan(HOLD_MS / 2);
    const summary = JSON.stringify({ p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max), samples: delay.count, waited });
    expect(ms(delay.percentile(99)), summary).toBeLessThan(50);
    expect(delay.count, summary).toBeGreaterThan(20); // the monitor ran through the wait
    expect(await q.getJob(id)).toMatchObject({ id, name: 'j', state: 'pending', payload: { n: 1 } });
  });

  it('rejects with LJ_ERR_DATABASE after about busyTimeout when the lock is held longer, and writes nothing', async () => {
    const BUSY_TIMEOUT = 300;
    const q = fx.open({ busyTimeout: BUSY_TIMEOUT });
    const holder = await holdWriteLock(fx.path(), 20_000);

    const started = performance.now();
    const err = await q.enqueue('j', { n: 1 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const elapsed = performance.now() - started;

    expect(err).toBeInstanceOf(DatabaseError);
    expect(err).toMatchObject({ code: 'LJ_ERR_DATABASE' });
    expect((err as Error).message).toMatch(/locked by another connection past busyTimeout \(300 ms\)/);
    // The store gives up when its next pause (≤ 25 ms) would overshoot busyTimeout.
    expect(elapsed).toBeGreaterThanOrEqual(BUSY_TIMEOUT - 50);
    expect(elapsed).toBeLessThan(BUSY_TIMEOUT + 1500); // about busyTimeout, not the default 5 s nor the 20 s hold

    holder.release();
    await holder.committed;
    expect((await q.stats()).total).toBe(0);
    expect(await q.listJobs()).toEqual([]);
    // The lock is free again: the queue writes as before.
    const { id } = await q.enqueue('j', { n: 2 });
    expect(await q.getJob(id)).toMatchObject({ state: 'pending', payload: { n: 2 } });
  });
});
