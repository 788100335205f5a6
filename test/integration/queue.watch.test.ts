/**
 * queue.watch(): every job's changes by any connection sharing the store, in
 * order, filtered by name and state, resumable from a change's cursor. The
 * watching queue runs on a virtual clock nobody advances: only the store's
 * hint or its own moves can make it read.
 */
import { firstValueFrom, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob, type JobChange } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { spawnFixture } from '../helpers/child-process.js';

const WATCH_ONLY = new URL('../fixtures/watch-only.ts', import.meta.url).pathname;

const fx = useQueues();
const still = () => createVirtualClock(Date.now());
const line = (c: JobChange) => `${c.id} ${c.name} ${c.from ?? '·'}→${c.to} ${c.event}`;

describe('queue.watch', () => {
  it("streams another connection's enqueues and transitions in order, from now on", async () => {
    const watcher = fx.open({ clock: still() });
    const { id: before } = await watcher.enqueue('ok', {});
    const seen = firstValueFrom(watcher.watch({ names: ['ok'] }).pipe(take(4), toArray()));
    // A subscription reads once to find where "now" is; the watcher's own store
    // calls wait for that read, so once this ping answers, the other queue's enqueue comes after it.
    await watcher.ping();
    const worker = fx.open({ jobs: [defineJob({ name: 'ok', handler: () => 'done' }), defineJob({ name: 'other', handler: () => 1 })] });
    const { id } = await worker.enqueue('ok', {});
    await worker.enqueue('other', {});
    await worker.cancel(before);
    await worker.start();
    const changes = await seen;
    expect(changes.map(line).filter((l) => !l.startsWith(`${before} `))).toEqual([`${id} ok ·→pending job.enqueue`, `${id} ok pending→processing job.claim`, `${id} ok processing→completed job.complete`]);
    expect(changes.map(line)).toContain(`${before} ok pending→cancelled job.cancel`);
    expect(changes.every((c) => c.at instanceof Date && typeof c.cursor === 'string')).toBe(true);
  });

  it('names a delayed edge as history does: a retry coming due is "after retryDelay"', async () => {
    let runs = 0;
    const q = fx.open({
      jobs: [defineJob({ name: 'flaky', retry: { attempts: 2, backoff: { type: 'fixed', delay: 0 } }, handler: () => { if (++runs === 1) throw new Error('once'); } })],
    });
    const seen = firstValueFrom(q.watch({ names: ['flaky'] }).pipe(take(6), toArray()));
    await q.ping();
    const { id } = await q.enqueue('flaky', {});
    await q.start();
    const events = (await seen).map((c) => `${c.from ?? '·'}→${c.to} ${c.event}`);
    expect(events).toEqual(['·→pending job.enqueue', 'pending→processing job.claim', 'processing→failed job.fail', 'failed→pending after retryDelay', 'pending→processing job.claim', 'processing→completed job.complete']);
    expect((await q.history(id)).map((t) => t.event)).toEqual(['job.enqueue', 'job.claim', 'job.fail', 'after retryDelay', 'job.claim', 'job.complete']);
  });

  it("sees this queue's own writes sent right after subscribe(), however long the watch's first read takes", async () => {
    const inner = fx.store();
    // The read that finds "now" answers late and takes its snapshot late, as a
    // query on a busy PostgreSQL connection may, while the enqueue below goes at once.
    const store = { ...inner, changes: async (...args: Parameters<NonNullable<typeof inner.changes>>) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return inner.changes!(...args);
    } };
    const q = fx.open({ clock: still(), store });
    const seen = firstValueFrom(q.watch().pipe(take(1), toArray()));
    const { id } = await q.enqueue('a', {});
    expect((await seen).map(line)).toEqual([`${id} a ·→pending job.enqueue`]);
  });

  it("holds this queue's calls for the watch's first store call only, not for the reads that follow it", async () => {
    const inner = fx.store();
    let calls = 0;
    let releaseFirst!: () => void;
    let releaseLater!: () => void;
    const first = new Promise<void>((resolve) => (releaseFirst = resolve));
    const later = new Promise<void>((resolve) => (releaseLater = resolve));
    // Every read waits until the test lets it go: the first, then all the others.
    const store = { ...inner, changes: async (...args: Parameters<NonNullable<typeof inner.changes>>) => {
      await (++calls === 1 ? first : later);
      return inner.changes!(...args);
    } };
    const clock = still();
    const q = fx.open({ clock, store });
    const seen = firstValueFrom(q.watch().pipe(take(1), toArray()));
    // The watch's safety tick asks for another read while the first is under way: it reads again after it.
    await clock.advance(1000);
    releaseFirst();
    // The second read is held, and this queue's calls go on meanwhile.
    const a = await q.enqueue('a', {});
    expect(calls).toBe(2);
    releaseLater();
    expect((await seen).map((c) => c.id)).toEqual([a.id]);
  });

  it('works on a store written as a class (methods on its prototype)', async () => {
    const inner = fx.store() as unknown as Record<string, unknown>;
    class ClassStore {}
    for (const [key, value] of Object.entries(inner)) {
      if (typeof value === 'function') Object.defineProperty(ClassStore.prototype, key, { value: (...args: unknown[]) => (value as (...a: unknown[]) => unknown)(...args) });
    }
    const q = fx.open({ clock: still(), store: new ClassStore() as never });
    const seen = firstValueFrom(q.watch().pipe(take(1), toArray()));
    const { id } = await q.enqueue('a', {});
    expect((await seen).map(line)).toEqual([`${id} a ·→pending job.enqueue`]);
  });

  it('filters by state, and resumes after a cursor with exactly the changes that followed it', async () => {
    const q = fx.open({ clock: still() });
    // From now on means from the subscription: this queue's writes that follow it are seen.
    const all = firstValueFrom(q.watch().pipe(take(6), toArray()));
    const dead = firstValueFrom(q.watch({ states: ['cancelled'] }).pipe(take(2), toArray()));
    const a = await q.enqueue('a', {});
    const b = await q.enqueue('b', {});
    await q.cancel(a.id);
    await q.promote(b.id);
    await q.cancel(b.id);
    const c = await q.enqueue('c', {});
    const changes = await all;
    // Each job's changes in their order; across jobs by time (two in one millisecond may come either way).
    const ofJob = (list: JobChange[], id: number) => list.filter((x) => x.id === id).map(line);
    expect(ofJob(changes, a.id)).toEqual([`${a.id} a ·→pending job.enqueue`, `${a.id} a pending→cancelled job.cancel`]);
    expect(ofJob(changes, b.id)).toEqual([`${b.id} b ·→pending job.enqueue`, `${b.id} b pending→pending job.promote`, `${b.id} b pending→cancelled job.cancel`]);
    expect(ofJob(changes, c.id)).toEqual([`${c.id} c ·→pending job.enqueue`]);
    expect((await dead).map((x) => x.id)).toEqual([a.id, b.id]);
    const resumed = await firstValueFrom(q.watch({ after: changes[2]!.cursor }).pipe(take(3), toArray()));
    // The same changes, none twice, none lost; each job's in its order (jobs made in one millisecond may interleave otherwise).
    expect(resumed.map(line).sort()).toEqual(changes.slice(3).map(line).sort());
    expect(resumed.filter((x) => x.id === b.id).map(line)).toEqual(changes.slice(3).filter((x) => x.id === b.id).map(line));
    expect(() => q.watch({ after: 'nope' })).toThrow(/cursor/);
    expect(() => q.watch({ names: 'a' } as never)).toThrow(/array/);
  });

  it('reads a backlog larger than one read in pages, and resumes from its first change with every change after it', async () => {
    const q = fx.open({ clock: still() });
    const all = firstValueFrom(q.watch().pipe(take(600), toArray()));
    const ids = (await q.enqueueMany(Array.from({ length: 300 }, (_, i) => ({ name: 'bulk', payload: i })))).map((r) => r.id);
    for (const id of ids) await q.cancel(id);
    const live = await all;
    expect(live).toHaveLength(600);
    // From the first change's cursor: the other 599, none twice, each job's in order.
    const resumed = await firstValueFrom(q.watch({ after: live[0]!.cursor }).pipe(take(599), toArray()));
    expect(resumed.map(line).sort()).toEqual(live.slice(1).map(line).sort());
    expect(new Set(resumed.map((c) => c.cursor)).size).toBe(599);
    for (const id of ids) expect(live.filter((c) => c.id === id).map((c) => c.event)).toEqual(['job.enqueue', 'job.cancel']);
    for (const id of ids.slice(1)) expect(resumed.filter((c) => c.id === id).map((c) => c.event)).toEqual(['job.enqueue', 'job.cancel']);
  });

  it('orders by commit, not by time: a writer whose clock is a second behind loses nothing to a reader resuming anywhere', async () => {
    const ahead = fx.open({ clock: still() });
    const behind = fx.open({ clock: createVirtualClock(Date.now() - 1000) });
    const all = firstValueFrom(ahead.watch().pipe(take(24), toArray()));
    await ahead.ping();
    const jobs: number[] = [];
    for (let i = 0; i < 6; i++) {
      const [w1, w2] = i % 2 === 0 ? [ahead, behind] : [behind, ahead];
      const a = await w1.enqueue('skew', i);
      const b = await w2.enqueue('skew', i);
      jobs.push(a.id, b.id);
      await w2.cancel(a.id);
      await w1.cancel(b.id);
    }
    const live = await all;
    for (const id of jobs) expect(live.filter((c) => c.id === id).map((c) => c.event)).toEqual(['job.enqueue', 'job.cancel']);
    // Resuming from every change's cursor gives exactly the changes after it, each job's in order
    // (jobs' changes may interleave otherwise: a live reader reads in smaller steps).
    for (let i = 0; i < live.length - 1; i++) {
      const rest = await firstValueFrom(ahead.watch({ after: live[i]!.cursor }).pipe(take(live.length - 1 - i), toArray()));
      expect(rest.map(line).sort()).toEqual(live.slice(i + 1).map(line).sort());
      for (const id of jobs) expect(rest.filter((c) => c.id === id).map(line)).toEqual(live.slice(i + 1).filter((c) => c.id === id).map(line));
    }
  });

  it('keeps a process alive whose only work is a watch, until it unsubscribes', async () => {
    const child = spawnFixture(WATCH_ONLY, fx.dbArg(), '2');
    await child.waitFor((m) => m.type === 'ready', 20_000);
    const q = fx.open();
    const { id } = await q.enqueue('kept', {});
    await q.cancel(id);
    expect(await child.exited).toEqual({ code: 0, signal: null });
    // Its event loop first ran empty (Node's 'beforeExit') after the last change and the close it
    // led to: from the first read on, the watch alone kept the process alive.
    expect(child.messages).toEqual([
      { type: 'ready' },
      { type: 'change', id, to: 'pending' },
      { type: 'change', id, to: 'cancelled' },
      { type: 'idle' },
    ]);
  });
});
