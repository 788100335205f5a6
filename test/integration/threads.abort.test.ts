import { describe, expect, it } from 'vitest';
import { TimeoutError } from '../../src/errors.js';
import { deferred, never, recordingHost, threadJob, usePools } from '../helpers/thread-pool.js';

const pool = usePools();

/** A host whose first heartbeat (the handler saying it started) resolves `started`. */
function startedHost() {
  const started = deferred();
  const host = recordingHost({
    heartbeat: () => {
      started.resolve();
      return Promise.resolve(true);
    },
  });
  return { host, started: started.promise };
}

describe('aborting a job in a thread', () => {
  it('a handler that honours its signal settles with its own outcome, and sees the reason string', async () => {
    const p = pool({ size: 1, graceMs: 20_000 });
    const { host, started } = startedHost();
    const ac = new AbortController();
    const outcome = p.run(threadJob('waits-for-abort', { after: 'return' }), host, ac.signal);
    await started;
    ac.abort('cancel');
    // Not `terminated`: the thread's signal aborted and the handler returned (long before graceMs).
    expect(await outcome).toEqual({ kind: 'completed', result: JSON.stringify({ reason: 'cancel' }) });
  });

  it('a TimeoutError reason arrives as a TimeoutError with its code and message', async () => {
    const p = pool({ size: 1, graceMs: 20_000 });
    const { host, started } = startedHost();
    const ac = new AbortController();
    const outcome = p.run(threadJob('waits-for-abort', { after: 'return' }), host, ac.signal);
    await started;
    ac.abort(new TimeoutError(50));
    const seen = JSON.parse((await outcome as { result: string }).result) as unknown;
    expect(seen).toEqual({ name: 'TimeoutError', code: 'LJ_ERR_TIMEOUT', message: 'handler timed out after 50 ms', isTimeoutError: true });

    // A handler that rethrows its signal's reason fails with the timeout, as on the main thread.
    const second = startedHost();
    const ac2 = new AbortController();
    const rethrown = p.run(threadJob('waits-for-abort', { after: 'throw' }), second.host, ac2.signal);
    await second.started;
    ac2.abort(new TimeoutError(70));
    expect(await rethrown).toMatchObject({ kind: 'failed', error: { name: 'TimeoutError', code: 'LJ_ERR_TIMEOUT', message: 'handler timed out after 70 ms' } });
  });

  it('a handler that ignores its signal is terminated after graceMs, and the next job runs on a fresh thread', async () => {
    const graceMs = 300;
    const p = pool({ size: 1, graceMs });
    const spinning = deferred<number>();
    const host = recordingHost({ onLog: (line) => spinning.resolve(line.obj?.threadId as number) });
    const ac = new AbortController();
    const outcome = p.run(threadJob('spin', null), host, ac.signal);
    const spinThread = await spinning.promise;
    const reason = new TimeoutError(10);
    const abortedAt = performance.now();
    ac.abort(reason);
    const settled = await outcome;
    const waited = performance.now() - abortedAt;
    expect(settled.kind).toBe('terminated');
    expect((settled as { reason: unknown }).reason).toBe(reason); // the main thread's own reason object
    expect(waited).toBeGreaterThanOrEqual(graceMs - 5);
    expect(waited).toBeLessThan(graceMs + 5000);
    expect(p.busy()).toBe(0);

    const next = await p.run(threadJob('echo', 'after'), recordingHost(), never());
    expect(next.kind).toBe('completed');
    const { threadId } = JSON.parse((next as { result: string }).result) as { threadId: number };
    expect(threadId).not.toBe(spinThread);
  });

  it('a job aborted while it waits for a thread never starts; the others keep their order', async () => {
    const p = pool({ size: 1 });
    const release = deferred<boolean>();
    const started: number[] = [];
    const host = recordingHost({ heartbeat: () => release.promise, onLog: (line) => started.push(line.obj?.index as number) });
    const first = p.run(threadJob('gate', { index: 1 }), host, never());
    const ac = new AbortController();
    const second = p.run(threadJob('gate', { index: 2 }), host, ac.signal);
    const third = p.run(threadJob('gate', { index: 3 }), host, never());
    ac.abort('cancel');
    expect(await second).toEqual({ kind: 'terminated', reason: 'cancel' });
    release.resolve(true);
    expect(await first).toEqual({ kind: 'completed', result: '1' });
    expect(await third).toEqual({ kind: 'completed', result: '3' });
    expect(started).toEqual([1, 3]);
  });

  it('a thread that exits or throws outside the handler fails the job and is replaced', async () => {
    const p = pool({ size: 1 });
    const exited = await p.run(threadJob('crash', { how: 'exit' }), recordingHost(), never());
    expect(exited).toMatchObject({ kind: 'failed', error: { message: expect.stringContaining('code 3') } });
    const uncaught = await p.run(threadJob('crash', { how: 'uncaught' }), recordingHost(), never());
    expect(uncaught).toMatchObject({ kind: 'failed', error: { message: 'stray failure outside the handler' } });
    expect(await p.run(threadJob('echo', 1), recordingHost(), never())).toMatchObject({ kind: 'completed' });
    expect(p.busy()).toBe(0);
  });
});
