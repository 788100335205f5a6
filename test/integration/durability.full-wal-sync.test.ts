/**
 * durability: 'full' syncs the WAL off the event loop (store/sqlite/wal-sync.ts):
 * a call is answered only once an fsync that started after its commit has
 * finished, commits made while one fsync runs share the next, and nothing
 * is answered early. Watched on a real file: the WAL's fsyncs, held open.
 */
import fs, { mkdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueue, defineJob, type Queue } from '../../src/index.js';
import { createWalSync } from '../../src/store/sqlite/wal-sync.js';
import { tempDir } from '../helpers/temp-db.js';
import { waitFor } from '../helpers/wait.js';

/** The jobs named 'hook' in the file, read by a connection of its own. */
function rows(path: string): number {
  const reader = new Database(path, { readonly: true });
  try {
    return reader.prepare("SELECT count(*) FROM jobs WHERE name = 'hook'").pluck().get() as number;
  } finally {
    reader.close();
  }
}

type Done = (err: Error | null) => void;

/** A settled flag for a promise, read after the microtasks have run. */
function track(p: Promise<unknown>): { settled: () => boolean; failed: () => unknown } {
  let settled = false;
  let failed: unknown;
  p.then(
    () => (settled = true),
    (err: unknown) => {
      settled = true;
      failed = err;
    },
  );
  return { settled: () => settled, failed: () => failed };
}
const ticks = () => new Promise((r) => setTimeout(r, 20));

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function walDb() {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'jobs.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE t (x)');
  const insert = db.prepare('INSERT INTO t VALUES (1)');
  const changes = db.prepare('SELECT total_changes()').pluck();
  cleanups.push(() => {
    db.close();
    cleanup();
  });
  const held: Done[] = [];
  const sync = createWalSync(`${path}-wal`, () => changes.get() as number, (fd, done) => {
    expect(readlinkSync(`/proc/self/fd/${fd}`)).toBe(`${path}-wal`);
    held.push(done);
  });
  return { write: () => insert.run(), sync, held };
}

describe('the WAL sync behind durability: full', () => {
  it('answers a commit only after an fsync that started after it, and commits made meanwhile share the next one', async () => {
    const { write, sync, held } = walDb();
    // Nothing written since it was made: nothing to sync.
    await sync.settle();
    expect(held).toHaveLength(0);

    write();
    const first = track(sync.settle());
    expect(held).toHaveLength(1);
    // Written while that fsync runs: it may have started before these frames were written.
    write();
    const second = track(sync.settle());
    write();
    const third = track(sync.settle());
    await ticks();
    expect(held).toHaveLength(1);
    expect([first.settled(), second.settled(), third.settled()]).toEqual([false, false, false]);

    held[0]!(null);
    await ticks();
    expect(first.settled()).toBe(true);
    // The next fsync started once the first ended, for both waiting commits together.
    expect(held).toHaveLength(2);
    expect([second.settled(), third.settled()]).toEqual([false, false]);
    held[1]!(null);
    await ticks();
    expect([second.settled(), third.settled()]).toEqual([true, true]);
    // All covered now.
    await sync.settle();
    expect(held).toHaveLength(2);
    await sync.close(async () => undefined);
  });

  it('closes the database only after the syncs under way, and a call that settles meanwhile waits for the close', async () => {
    const { write, sync, held } = walDb();
    write();
    const first = track(sync.settle());
    let closed = false;
    const closing = track(
      sync.close(async () => {
        closed = true;
      }),
    );
    write();
    const during = track(sync.settle());
    await ticks();
    expect([closed, first.settled(), during.settled(), closing.settled()]).toEqual([false, false, false, false]);
    held[0]!(null);
    await ticks();
    // The last sync is the close's own, on the calling thread: no other fsync started.
    expect(held).toHaveLength(1);
    expect([closed, first.settled(), during.settled(), closing.settled()]).toEqual([true, true, true, true]);
  });

  it('fails the call whose commit the sync was to cover when it fails, and every later one: a hole may be left in the WAL', async () => {
    const { write, sync, held } = walDb();
    write();
    const call = track(sync.settle());
    held[0]!(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    await ticks();
    expect(call.failed()).toMatchObject({ code: 'EIO' });
    // A later sync could succeed with the failed pages dropped: no later commit is answered as safe.
    write();
    const later = track(sync.settle());
    await ticks();
    expect(held).toHaveLength(1);
    expect(later.failed()).toMatchObject({ code: 'EIO' });
    expect(() => sync.settleSync()).toThrow(expect.objectContaining({ code: 'EIO' }));
    // The close still closes the database, and says the sync failed.
    let closed = false;
    await expect(
      sync.close(async () => {
        closed = true;
      }),
    ).rejects.toMatchObject({ code: 'EIO' });
    expect(closed).toBe(true);
  });
});

describe('a queue at durability: full', () => {
  let queue: Queue | undefined;
  /** The WAL syncs held (each released once), and the files they sync. */
  let held: Array<() => void> = [];
  let synced: string[] = [];
  afterEach(async () => {
    for (const release of held.splice(0)) release();
    await queue?.close();
    queue = undefined;
  });

  /** Holds each fdatasync of a file named *-wal until released; others go through. */
  function holdWalSyncs() {
    const original = fs.fdatasync;
    held = [];
    synced = [];
    fs.fdatasync = ((fd: number, cb: Done) => {
      const file = readlinkSync(`/proc/self/fd/${fd}`);
      if (!file.endsWith('-wal')) return original(fd, cb);
      synced.push(file);
      let released = false;
      held.push(() => {
        if (!released) original(fd, cb);
        released = true;
      });
    }) as typeof fs.fdatasync;
    syncBuiltinESMExports();
    cleanups.push(() => {
      fs.fdatasync = original;
      syncBuiltinESMExports();
    });
    return held;
  }

  for (const durability of ['full', 'normal'] as const) {
    it(`${durability === 'full' ? 'answers an enqueue once its WAL is synced, off the event loop' : "at 'normal', answers without syncing the WAL"}`, async () => {
      holdWalSyncs();
      const { dir, cleanup } = tempDir();
      cleanups.push(cleanup);
      const path = join(dir, 'jobs.db');
      queue = createQueue({ path, durability, logger: false, jobs: [defineJob({ name: 'hook', handler: () => undefined })] });
      const enqueued = track(queue.enqueue('hook', { n: 1 }));
      // Committed: the row is there for every reader (the event loop ran meanwhile).
      await waitFor(() => rows(path) === 1);
      if (durability === 'normal') {
        await waitFor(() => enqueued.settled());
        expect(held).toHaveLength(0);
        return;
      }
      await ticks();
      expect(enqueued.settled()).toBe(false);
      expect(held).toHaveLength(1);
      held[0]!();
      await waitFor(() => enqueued.settled());
      expect(enqueued.failed()).toBeUndefined();
    });
  }

  it('syncs the WAL SQLite writes when the path given is a symbolic link', async () => {
    holdWalSyncs();
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    mkdirSync(join(dir, 'real'));
    const real = join(dir, 'real', 'jobs.db');
    // SQLite follows the link: its WAL lies beside the real file, and none beside the link.
    new Database(real).close();
    const link = join(dir, 'link.db');
    symlinkSync(real, link);
    queue = createQueue({ path: link, durability: 'full', logger: false, jobs: [defineJob({ name: 'hook', handler: () => undefined })] });
    const enqueued = track(queue.enqueue('hook', { n: 1 }));
    await waitFor(() => held.length === 1);
    expect(synced).toEqual([`${real}-wal`]);
    expect(enqueued.settled()).toBe(false);
    held[0]!();
    await waitFor(() => enqueued.settled());
    expect(enqueued.failed()).toBeUndefined();
  });
});

it('syncs on the calling thread for a synchronous call', async () => {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const path = join(dir, 'jobs.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (x)');
  const changes = db.prepare('SELECT total_changes()').pluck();
  let async = 0;
  const sync = createWalSync(`${path}-wal`, () => changes.get() as number, (_fd, done) => {
    async++;
    done(null);
  });
  db.prepare('INSERT INTO t VALUES (1)').run();
  sync.settleSync();
  // Covered already: an asynchronous settle starts no fsync.
  await sync.settle();
  expect(async).toBe(0);
  db.prepare('INSERT INTO t VALUES (2)').run();
  void sync.settle();
  expect(async).toBe(1);
  await sync.close(async () => undefined);
  db.close();
});
