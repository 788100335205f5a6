import { existsSync, readdirSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WAL_AUTOCHECKPOINT_PAGES } from '../../src/store/sqlite/open.js';
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

  it('close() ends the thread before it resolves: the last connection closes and removes the WAL', async () => {
    const threads = () => readdirSync('/proc/self/task').length;
    await fx.open().close(); // first, so that threads Node starts once (its pools) are already up
    const before = threads();
    const q = fx.open();
    await q.enqueue('j', 1);
    expect(threads()).toBeGreaterThan(before);
    await q.close();
    expect(threads()).toBe(before);
    expect(existsSync(`${fx.path()}-wal`)).toBe(false);
  });
});
