import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob } from '../../src/index.js';
import { TEST_STORE, useQueues } from '../helpers/queue-fixture.js';
import { tempDir } from '../helpers/temp-db.js';
import { events, nextEvent, nextPass } from '../helpers/wait.js';

const fx = useQueues();

const counting = (names: string[]) => ({
  seen: new Map<string, number>(),
  jobs(): ReturnType<typeof defineJob>[] {
    return names.map((name) =>
      defineJob({
        name,
        handler: () => {
          this.seen.set(name, (this.seen.get(name) ?? 0) + 1);
        },
      }),
    );
  },
});

describe('pause and resume', () => {
  it('a name paused by one connection is not claimed by a worker on another; other names run; resume releases it', async () => {
    const runs = counting(['a', 'b']);
    const admin = fx.open(); // a second connection to the same file: another process, as far as SQLite knows
    const worker = fx.open({ jobs: runs.jobs(), pollInterval: 20 });
    await admin.pause('a');
    expect((await admin.stats()).paused).toEqual({ all: false, names: ['a'] });
    expect((await worker.stats()).paused).toEqual({ all: false, names: ['a'] });

    const a = await worker.enqueue('a', 1); // enqueueing a paused name still works
    const b = await worker.enqueue('b', 2);
    const bDone = nextEvent(worker.events$, (e) => e.job.id === b.id && e.to === 'completed');
    await worker.start();
    await bDone;
    // The worker went idle: its loop looks again, and leaves the paused job alone.
    await nextPass(worker.passes$, (p) => p.free > 0);
    expect((await worker.getJob(a.id)).state).toBe('pending');
    expect(runs.seen.get('a')).toBeUndefined();

    const aDone = nextEvent(worker.events$, (e) => e.job.id === a.id && e.to === 'completed');
    await admin.resume('a'); // committed by the other connection: the worker sees it by its data_version poll
    await aDone;
    expect(runs.seen.get('a')).toBe(1);
    expect((await worker.stats()).paused).toEqual({ all: false, names: [] });
  });

  it('pausing the whole queue stops every name; a running job finishes; resume in the same process wakes the workers', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = fx.open({
      jobs: [
        defineJob({ name: 'slow', handler: () => gate.then(() => 'finished') }),
        defineJob({ name: 'quick', handler: () => 'ok' }),
      ],
    });
    const slow = await q.enqueue('slow', {});
    const started = nextEvent(q.events$, (e) => e.job.id === slow.id && e.to === 'processing');
    // The pass that claimed the slow job may end after the job did (on a busy machine): the pass looked at is a later one.
    let claimPassEnded = false;
    let leased = 0;
    q.passes$.subscribe((p) => {
      if (p.claimed > 0) claimPassEnded = true;
    });
    q.claims$.subscribe((c) => (leased += c.count));
    await q.start();
    await started;
    await q.pause();
    expect((await q.stats()).paused).toEqual({ all: true, names: [] });
    const quick = await q.enqueue('quick', {});
    const slowDone = nextEvent(q.events$, (e) => e.job.id === slow.id && e.to === 'completed');
    let afterClaimPass = claimPassEnded;
    // Every slot free (after the slow job), in a pass after the one that claimed it.
    const looked = nextPass(q.passes$, (p) => {
      const later = afterClaimPass;
      afterClaimPass ||= claimPassEnded;
      return later && p.free === q.workers().length + 16;
    });
    release();
    await slowDone; // the running job was not stopped by the pause
    expect(await looked).toMatchObject({ claimed: 0 });
    expect(leased).toBe(1); // the slow job alone, ever
    expect((await q.getJob(quick.id)).state).toBe('pending');
    const quickDone = nextEvent(q.events$, (e) => e.job.id === quick.id && e.to === 'completed');
    await q.resume();
    await quickDone;
  });

  it('a pause is kept in the file: a queue opened later does not claim the paused name', async () => {
    const first = fx.open();
    await first.pause('a');
    await first.pause('a'); // idempotent
    const { id } = await first.enqueue('a', {});
    await first.close();
    const runs = counting(['a']);
    const later = fx.open({ jobs: runs.jobs() });
    const looked = nextPass(later.passes$);
    await later.start();
    expect(await looked).toMatchObject({ claimed: 0 });
    expect((await later.getJob(id)).state).toBe('pending');
    expect((await later.stats()).paused.names).toEqual(['a']);
  });

  it('a paused name with jobs already due does not spin the claim loop', async () => {
    // Virtual time: a loop that re-arms its due timer for jobs it may not claim passes once
    // per virtual millisecond; one that does not passes only on its idle poll.
    const clock = createVirtualClock(Date.now());
    const q = fx.open({ clock, jobs: [defineJob({ name: 'a', handler: () => {} })] });
    await q.pause('a');
    // Delayed jobs whose time has come: the due-time lookup would hand back a time in the past.
    await q.enqueueMany([1, 2, 3].map((n) => ({ name: 'a', payload: n, options: { delay: 1 } })));
    await clock.advance(5);
    let passes = 0;
    const sub = q.passes$.subscribe(() => passes++);
    const first = nextPass(q.passes$);
    await q.start();
    await first;
    for (let i = 0; i < 40; i++) await clock.advance(10); // 400 virtual ms, each step's passes run to their end
    sub.unsubscribe();
    expect(passes).toBeGreaterThan(0);
    expect(passes).toBeLessThan(10);
    const done = events(q.events$, (e) => e.to === 'completed', 3);
    await q.resume('a');
    expect(await done).toHaveLength(3);
  });

  it('refuses a pause name that is not a non-empty string', async () => {
    const q = fx.open();
    await expect(q.pause('')).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await expect(q.resume(42 as unknown as string)).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    expect((await q.stats()).paused).toEqual({ all: false, names: [] });
  });
});

describe('retryDead, ping, diagnose and backup progress', () => {
  it('retryDead sends every dead job of one name (or all names) back to pending', async () => {
    let fail = true;
    const handler = () => {
      if (fail) throw new Error('down');
      return 'ok';
    };
    const q = fx.open({ jobs: ['a', 'b'].map((name) => defineJob({ name, retry: { attempts: 1 }, handler })) });
    const ids = await q.enqueueMany([...Array(5)].map((_, i) => ({ name: i < 3 ? 'a' : 'b', payload: i })));
    const dead = events(q.events$, (e) => e.to === 'dead', 5);
    await q.start();
    await dead;
    await q.pause(); // hold the retried jobs in pending where they can be counted
    fail = false;
    expect(await q.retryDead({ name: 'a' })).toBe(3);
    expect((await q.stats()).byName).toMatchObject({ a: { pending: 3 }, b: { dead: 2 } });
    expect(await q.retryDead()).toBe(2);
    expect(await q.retryDead()).toBe(0);
    const done = events(q.events$, (e) => e.to === 'completed', 5);
    await q.resume();
    expect(new Set((await done).map((e) => e.job.id))).toEqual(new Set(ids.map((r) => r.id)));
    await expect(q.retryDead({ state: 'failed' } as never)).rejects.toMatchObject({ code: 'LJ_ERR_UNKNOWN_OPTION' });
  });

  it('ping answers while the queue is open; diagnose reports the file and expired leases', async () => {
    const q = fx.open();
    await q.ping();
    const { id } = await q.enqueue('orphan', {});
    // A worker that claimed the job and vanished: its lease ran out long ago.
    await fx.sql("UPDATE jobs SET state = 'processing', locked_until = 1 WHERE id = ?", [id]);
    const d = await q.diagnose({ integrity: true });
    expect(d.pageCount).toBeGreaterThan(0);
    expect(d.cacheBytes).toBeGreaterThan(0);
    if (TEST_STORE === 'sqlite') {
      expect(d).toMatchObject({ store: 'sqlite', path: fx.path(), journalMode: 'wal', expiredLeases: 1, integrity: ['ok'] });
      // Pages still in the WAL are not in the main file yet: together they hold at least the counted pages.
      expect(d.fileBytes + d.walBytes).toBeGreaterThanOrEqual(d.pageSize * d.pageCount);
    } else {
      // The schema's tables and indexes; no integrity check is built into PostgreSQL ("not checked").
      expect(d).toMatchObject({ store: 'postgres', path: expect.stringContaining('postgres://'), journalMode: 'postgresql', expiredLeases: 1, walBytes: 0 });
      expect(d.integrity).toBeUndefined();
      expect(d.fileBytes).toBeGreaterThanOrEqual(d.pageSize * (d.pageCount - 1));
    }
    expect((await q.diagnose()).integrity).toBeUndefined();
    await q.close();
    await expect(q.ping()).rejects.toMatchObject({ code: 'LJ_ERR_QUEUE_CLOSED' });
  });

  it('backup reports its progress and the copy holds the jobs', async () => {
    const q = fx.open();
    await q.enqueueMany([...Array(3000)].map((_, i) => ({ name: 'j', payload: { i, pad: 'x'.repeat(200) } })));
    const dir = tempDir();
    const dest = join(dir.dir, 'copy.db');
    const seen: Array<{ totalPages: number; remainingPages: number }> = [];
    if (TEST_STORE === 'postgres') {
      // The server's own tools back up a schema: the error names the recipe.
      await expect(q.backup(dest, { onProgress: (p) => seen.push(p) })).rejects.toMatchObject({ code: 'LJ_ERR_DATABASE', message: expect.stringContaining('pg_dump --schema=') });
      expect(seen).toEqual([]);
      dir.cleanup();
      return;
    }
    await q.backup(dest, { onProgress: (p) => seen.push(p) });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]!.totalPages).toBeGreaterThan(0);
    const copy = new Database(dest, { readonly: true });
    expect(copy.prepare('SELECT count(*) FROM jobs').pluck().get()).toBe(3000);
    copy.close();
    dir.cleanup();
  });
});
