/**
 * The process registry behind the dashboard's Workers panel, on either
 * store: a queue that runs workers registers its process (host, pid,
 * concurrency, names) and the view shows its running jobs in its slots;
 * another OS process has a row of its own; a graceful close removes the
 * row; a SIGKILLed process's row leaves the view once its heartbeat ages
 * out, and a survivor's heartbeat deletes it. A lease owner with no row is
 * still shown by its owner id.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createWorkers, type WorkerView, type WorkersView } from '../../src/live/workers.js';
import { heartbeatEvery } from '../../src/engine/run/process-registry.js';
import { defineJob, type Queue } from '../../src/index.js';
import { packageVersion } from '../../src/lib/package-version.js';
import { internalsOf } from '../../src/queue-internals.js';
import { spawnChild, type Child } from '../helpers/child-process.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events } from '../helpers/wait.js';

const fx = useQueues();
/** Child processes start in about half a second; a busy machine can take far longer. */
const CHILD_MS = 60_000;

/** A fresh read of the Workers view through `queue`'s store, as the dashboard makes it. */
const view = (queue: Queue): Promise<WorkersView> => createWorkers(internalsOf(queue).store, () => Date.now()).view();

/** Reads `read()` again until `pred` holds (state with no event to wait on: rows another process writes). */
async function until<T>(read: () => Promise<T>, pred: (value: T) => boolean, ms = CHILD_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (pred(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${ms} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const ownerOf = (queue: Queue) => internalsOf(queue).ownerId;
const find = (v: WorkersView, owner: string): WorkerView | undefined => v.workers.find((w) => w.owner === owner);
const registered = async (): Promise<string[]> => (await fx.sql<{ owner: string }>('SELECT owner FROM worker_processes ORDER BY owner')).map((r) => r.owner);

/** A child running 'work' jobs (test/fixtures/worker-process.ts: 8 workers, a 1.5 s lease unless given), once it has started. */
async function startChild(leaseMs?: number): Promise<{ child: Child; owner: string; pid: number }> {
  const child = spawnChild(fx.dbArg(), 'work', leaseMs);
  const ready = await child.waitFor((m) => m.type === 'ready', CHILD_MS);
  return { child, owner: ready.owner as string, pid: ready.pid as number };
}

describe('the process registry', () => {
  it('holds a running queue with its host, pid and concurrency; the view puts its running jobs in its slots', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const q = fx.open({ concurrency: 3, prefetch: 0, jobs: [defineJob({ name: 'hold', handler: () => held }), defineJob({ name: 'other', handler: () => {} })] });
    const a = await q.enqueue('hold', 1);
    const b = await q.enqueue('hold', 2);
    const running = events(q.events$, (e) => e.to === 'processing', 2);
    await q.start();
    await running;

    const owner = ownerOf(q);
    const w = find(await until(() => view(q), (v) => find(v, owner)?.process !== undefined), owner)!;
    expect(w.process).toMatchObject({ host: hostname(), pid: process.pid, concurrency: 3, names: ['hold', 'other'], version: packageVersion(), heartbeatMs: heartbeatEvery(30_000, 5000) });
    expect(w.process!.seenAt).toBeGreaterThanOrEqual(w.process!.startedAt);
    expect(w.busy).toBe(2);
    expect(w.running.map((r) => [r.id, r.name])).toEqual([
      [a.id, 'hold'],
      [b.id, 'hold'],
    ]);

    release();
    await q.stop();
    // Gone from the registry at once; its claims of the last minute still show the owner id alone.
    expect(await registered()).toEqual([]);
    const after = find(await view(q), owner);
    expect(after?.process).toBeUndefined();
    expect(after?.running).toEqual([]);
  });

  it('gives another OS process a row of its own, removed when it closes', { timeout: 2 * CHILD_MS }, async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'work', handler: () => {} })] });
    await q.start();
    const { child, owner, pid } = await startChild();
    const both = await until(() => view(q), (v) => find(v, owner)?.process !== undefined && find(v, ownerOf(q))?.process !== undefined);
    expect(find(both, owner)!.process).toMatchObject({ host: hostname(), pid, concurrency: 8, names: ['work'] });
    expect(pid).not.toBe(process.pid);
    expect(find(both, ownerOf(q))!.process).toMatchObject({ pid: process.pid, concurrency: 4 });

    child.proc.kill('SIGTERM');
    await child.waitFor((m) => m.type === 'closed', CHILD_MS);
    expect(await registered()).toEqual([ownerOf(q)]);
    // It never claimed a job (none was enqueued): nothing else keeps it in the view.
    expect(find(await view(q), owner)).toBeUndefined();
  });

  it("leaves out a SIGKILLed process once its heartbeat ages out; a survivor's heartbeat deletes its row", { timeout: 2 * CHILD_MS }, async () => {
    // Runs no workers, so it writes no heartbeat of its own: only the view's reading decides.
    const viewer = fx.open();
    await viewer.ping();
    // A 400 ms lease beats every 200 ms (half of it): its row leaves the view
    // 600 ms after its last beat and may be deleted 4 s after it.
    const { child, owner } = await startChild(400);
    await until(() => view(viewer), (v) => find(v, owner)?.process !== undefined);

    child.proc.kill('SIGKILL');
    await child.exited;
    await until(() => view(viewer), (v) => find(v, owner) === undefined);
    expect(await registered()).toEqual([owner]);

    // A short lease beats often (every 750 ms): its first beats find the dead row.
    const survivor = fx.open({ lease: 1500, jobs: [defineJob({ name: 'work', handler: () => {} })] });
    await survivor.start();
    expect(await until(registered, (owners) => !owners.includes(owner))).toEqual([ownerOf(survivor)]);
  });

  it('still shows a lease owner with no row (an older litejobs) by its owner id', async () => {
    const q = fx.open();
    const { id } = await q.enqueue('old', {});
    const store = internalsOf(q).store;
    await store.claim({ names: ['old'], limit: 1, owner: 'vm:19428:0a3e00', leaseMs: 60_000, now: Date.now(), rule: CLAIM_RULE });
    const w = find(await view(q), 'vm:19428:0a3e00');
    expect(w?.running.map((r) => r.id)).toEqual([id]);
    expect(w?.process).toBeUndefined();
    expect(w?.busy).toBeUndefined();
  });
});
