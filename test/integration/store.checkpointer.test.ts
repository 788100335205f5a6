import { existsSync, readdirSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createQueue } from '../../src/index.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import { checkpointedFiles, checkpointerRunning, checkpointerThreadId, startCheckpointer } from '../../src/store/sqlite/checkpointer.js';
import { WAL_AUTOCHECKPOINT_PAGES } from '../../src/store/sqlite/open.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { waitFor } from '../helpers/wait.js';

const fx = useQueues();

describe('WAL checkpoints on a worker thread', () => {
  it('copies committed pages into the database file while the queue is open, below the auto-checkpoint threshold', async () => {
    const q = fx.open();
    const before = statSync(fx.path()).size;
    // ~500 commits of a few pages each: far fewer WAL frames than the
    // connection's own threshold, so only the thread can have copied them.
    for (let i = 0; i < 500; i++) await q.enqueue('j', { i, pad: 'x'.repeat(200) });
    const walPages = statSync(`${fx.path()}-wal`).size / 4096;
    expect(walPages).toBeLessThan(WAL_AUTOCHECKPOINT_PAGES);
    await waitFor(() => statSync(fx.path()).size > before + 100 * 1024, 10_000);
  });

  it('close() resolves once the thread has closed its connection: the last close removes the WAL', async () => {
    const q = fx.open();
    await q.enqueue('j', 1);
    expect(existsSync(`${fx.path()}-wal`)).toBe(true);
    await q.close();
    expect(existsSync(`${fx.path()}-wal`)).toBe(false);
  });

  it('one thread serves every store of the process, and ends a moment after the last one closed', async () => {
    const threads = () => readdirSync('/proc/self/task').length;
    await waitFor(() => !checkpointerRunning(), 5000); // whatever an earlier test left
    const before = threads();
    const a = fx.open();
    await a.enqueue('j', 1);
    await waitFor(() => checkpointerRunning(), 5000); // started a moment after the open
    expect(threads()).toBeGreaterThan(before);
    const serving = checkpointerThreadId();
    expect(serving).toBeDefined();
    const b = createQueue({ path: `${fx.path()}.second`, logger: silentLogger });
    await b.enqueue('j', 1);
    await a.enqueue('j', 1);
    // The same thread for both (the process's thread count is no measure: libuv and V8 start threads of their own meanwhile).
    expect(checkpointerThreadId()).toBe(serving);
    expect(checkpointedFiles()).toBe(2);
    await a.close();
    await b.close();
    expect(checkpointerRunning()).toBe(true); // kept a moment for the next store
    await waitFor(() => !checkpointerRunning() && threads() === before, 5000);
  });

  it('starts the thread only once a store has been open a while: a store closed before that never starts it', async () => {
    await waitFor(() => !checkpointerRunning(), 5000); // whatever an earlier test left
    const clock = createVirtualClock(Date.parse('2026-06-01T00:00:00Z'));
    const q = fx.open(); // the file, with its schema
    await q.close();
    const options = { path: fx.path(), synchronous: 'NORMAL' as const, busyTimeoutMs: 1000, clock, startAfterMs: 250, onError: (m: string) => expect.fail(m) };
    const brief = startCheckpointer(options);
    expect(checkpointedFiles()).toBe(1);
    await clock.advance(249);
    await brief.close();
    expect([checkpointerRunning(), checkpointedFiles()]).toEqual([false, 0]);

    const kept = startCheckpointer(options);
    expect(checkpointerRunning()).toBe(false);
    await clock.advance(250);
    expect(checkpointerRunning()).toBe(true);
    expect(checkpointedFiles()).toBe(1);
    await kept.close();
    expect(checkpointedFiles()).toBe(0);
  });
});
