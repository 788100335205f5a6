/**
 * The store's change signal (`watchChanges`): a watch on the WAL, confirmed by
 * PRAGMA data_version. It fires for another connection's commit and not for
 * the store's own, survives the WAL being truncated, deleted and created
 * again, and stops when unsubscribed or when the store closes.
 */
import Database from 'better-sqlite3';
import { existsSync, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { watchWal } from '../../src/store/sqlite/wal-watch.js';
import type { NewJob, Store } from '../../src/store/store.js';
import { tempDbPath } from '../helpers/temp-db.js';

const job = (): NewJob => ({ name: 'j', state: 'pending', payload: '{}', key: null, priority: 0, runAt: Date.now(), retry: null, timeout: null });
const open = (path: string): Store => createSqliteStore({ path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 5000, history: true });

/** Counts calls and lets a test await the next one. */
function signal() {
  let calls = 0;
  const waiters: Array<() => void> = [];
  return {
    fire: () => {
      calls++;
      for (const w of waiters.splice(0)) w();
    },
    calls: () => calls,
    /** Resolves at the next call (or at once if `calls()` already passed `seen`). */
    after: (seen: number, ms = 10_000) =>
      new Promise<void>((resolve, reject) => {
        if (calls > seen) return resolve();
        const timer = setTimeout(() => reject(new Error(`no change signal within ${ms} ms`)), ms);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

/**
 * Runs `write`, then resolves once an event for the WAL of `path` came and the
 * WAL watch had time to look at it: the test's own watch on the directory gets
 * the same inotify events in the same turn of the event loop, and the WAL
 * watch looks again 1 ms after a look that found nothing. Used to show that
 * something did NOT fire, or to let a write's events pass before the next step.
 */
async function walWriteSeen(path: string, write: () => unknown): Promise<void> {
  const wal = `${basename(path)}-wal`;
  let seen!: () => void;
  const got = new Promise<void>((resolve) => (seen = resolve));
  const w = watch(dirname(path), (_e, name) => name === wal && seen());
  try {
    await write();
    await got;
  } finally {
    w.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 25));
}

/**
 * A TRUNCATE checkpoint, tried until it wins. It answers busy=1 without
 * waiting while another connection checkpoints (every open store's
 * checkpointer thread runs a PASSIVE one every 50 ms to 1 s) or still reads
 * the WAL; a and b write nothing meanwhile, so a later try wins.
 */
async function truncateWal(db: Database.Database): Promise<void> {
  let tries = 0;
  for (const deadline = Date.now() + 10_000; ; tries++) {
    const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    if (r?.busy === 0) return;
    if (Date.now() > deadline) throw new Error(`wal_checkpoint(TRUNCATE) still busy after ${tries + 1} tries`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});
function tempPath(): string {
  const tmp = tempDbPath();
  cleanups.push(tmp.cleanup);
  return tmp.path;
}
function openStore(path: string): Store {
  const store = open(path);
  cleanups.push(() => store.close());
  return store;
}

describe('Store.watchChanges (SQLite: a watch on the WAL)', () => {
  it("fires after another connection's commit, not after the store's own, and leaves externalChange() to the claim loop", async () => {
    const path = tempPath();
    const a = openStore(path);
    const b = openStore(path);
    a.externalChange(); // forget b's opening
    const changed = signal();
    const unwatch = a.watchChanges!(changed.fire);

    // Its own commits write the WAL too: no signal.
    await walWriteSeen(path, () => a.insert([job()], Date.now()));
    await walWriteSeen(path, () => a.insert([job(), job()], Date.now()));
    expect(changed.calls()).toBe(0);

    await b.insert([job()], Date.now());
    await changed.after(0);
    // The signal did not consume the change: the claim loop's confirmation still sees it, once.
    expect(a.externalChange()).toBe(true);
    expect(a.externalChange()).toBe(false);

    // A claim (an UPDATE) by the other connection counts the same as an insert.
    const seen = changed.calls();
    await b.claim({ names: ['j'], limit: 1, owner: 'b', leaseMs: 1000, now: Date.now(), rule: { from: 'pending', to: 'processing', attempts: 1, event: 'job.claim' } });
    await changed.after(seen);

    // Unsubscribed: the other connection's commits no longer signal.
    unwatch();
    const before = changed.calls();
    await walWriteSeen(path, () => b.insert([job()], Date.now()));
    expect(changed.calls()).toBe(before);
  });

  it('close() stops the watches the store still has', async () => {
    const path = tempPath();
    const a = open(path);
    const b = openStore(path);
    const changed = signal();
    a.watchChanges!(changed.fire);
    await b.insert([job()], Date.now());
    await changed.after(0);
    await a.close();
    const before = changed.calls();
    await walWriteSeen(path, () => b.insert([job()], Date.now()));
    expect(changed.calls()).toBe(before);
  });

  it('keeps firing after another connection truncates the WAL to 0 bytes', async () => {
    const path = tempPath();
    const a = openStore(path);
    const b = openStore(path);
    const changed = signal();
    a.watchChanges!(changed.fire);
    await b.insert([job()], Date.now());
    await changed.after(0);

    const raw = new Database(path);
    cleanups.push(() => void raw.close());
    await walWriteSeen(path, () => truncateWal(raw));
    expect(statSync(`${path}-wal`).size).toBe(0);
    a.externalChange(); // the truncation restarted the WAL: forget it

    const seen = changed.calls();
    await b.insert([job()], Date.now());
    await changed.after(seen);
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
  });

  it('follows the WAL when the last connection deletes it and a new one creates it again', async () => {
    const path = tempPath();
    // Watched without a connection of its own (a store's connection would keep the WAL alive):
    // every WAL event counts here, and `phase` tells which WAL it came from.
    let phase = 'first WAL';
    const phases: string[] = [];
    const errors: Error[] = [];
    const changed = signal();
    const stop = watchWal({
      path,
      committed: () => true,
      ownWrites: () => 0,
      onChange: () => {
        phases.push(phase);
        changed.fire();
      },
      onError: (err) => errors.push(err),
    });
    cleanups.push(stop);

    const first = open(path);
    cleanups.push(() => first.close());
    await first.insert([job()], Date.now());
    await changed.after(0);
    // The last connection closes: SQLite checkpoints and deletes the WAL (its events pass before the next phase).
    await walWriteSeen(path, () => first.close());
    expect(existsSync(`${path}-wal`)).toBe(false);

    phase = 'second WAL';
    const second = openStore(path); // creates the WAL again, under a new inode
    await second.insert([job()], Date.now());
    while (!phases.includes('second WAL')) await changed.after(changed.calls());
    expect(existsSync(`${path}-wal`)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('is absent on a store in memory (no WAL, no other process): the poll alone', () => {
    const store = open(':memory:');
    cleanups.push(() => store.close());
    expect(store.watchChanges).toBeUndefined();
  });
});
