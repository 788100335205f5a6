/**
 * ctx.publish and queue.published: a running job publishes values under
 * keys (the latest per key), which another connection reads or waits for,
 * every watcher sees as changes (not moves), and getJob shows; a wait ends
 * with null once the job finished without the key or its timeout passed.
 */
import { firstValueFrom, filter, Observable, take, throwError, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';

const fx = useQueues();

describe('ctx.publish and queue.published', () => {
  it('a value published by a run reaches a waiter in another connection, getJob and every watcher; the job history leaves it out', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const worker = fx.open({
      jobs: [
        defineJob({
          name: 'import',
          handler: async (_: unknown, ctx) => {
            await ctx.publish('stage', { step: 2, of: 5, rows: 1200 });
            await gate;
            await ctx.publish('stage', { step: 5, of: 5 });
            await ctx.publish('url', 'https://example.com/report.csv');
            return 'done';
          },
        }),
      ],
    });
    const reader = fx.open({ clock: createVirtualClock(Date.now()) });
    const { id } = await worker.enqueue('import', {});
    const changes = firstValueFrom(reader.watch({ names: ['import'] }).pipe(filter((c) => c.published !== undefined), take(3), toArray()));
    await reader.ping();
    const waited = reader.published(id, 'stage');
    await worker.start();
    expect(await waited).toEqual({ step: 2, of: 5, rows: 1200 });
    release();
    expect(await worker.result(id, { timeout: 20_000 })).toBe('done');
    expect((await changes).map((c) => [c.event, c.from, c.to, c.published])).toEqual([
      ['job.publish', 'processing', 'processing', { key: 'stage', value: { step: 2, of: 5, rows: 1200 } }],
      ['job.publish', 'processing', 'processing', { key: 'stage', value: { step: 5, of: 5 } }],
      ['job.publish', 'processing', 'processing', { key: 'url', value: 'https://example.com/report.csv' }],
    ]);
    expect((await reader.getJob(id)).published).toEqual({ stage: { step: 5, of: 5 }, url: 'https://example.com/report.csv' });
    expect(await reader.published(id, 'url')).toBe('https://example.com/report.csv');
    expect((await reader.history(id)).map((h) => h.event)).toEqual(['job.enqueue', 'job.claim', 'job.complete']);
    await worker.stop();
  });

  it('a wait ends with null once the job finished without the key or the timeout passed; a missing job and bad input are refused', async () => {
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'quiet',
          handler: async (_: unknown, ctx) => {
            await ctx.publish('other', 1);
            return 'ok';
          },
        }),
      ],
    });
    const { id } = await q.enqueue('quiet', {});
    expect(await q.published(id, 'stage', { timeout: 50 })).toBeNull();
    expect(await q.published(id, 'stage', { timeout: 0 })).toBeNull();
    const waiting = q.published(id, 'stage');
    await q.start();
    expect(await waiting).toBeNull();
    await expect(q.published(id + 100, 'stage')).rejects.toMatchObject({ code: 'LJ_ERR_JOB_NOT_FOUND' });
    for (const key of ['', 'a b', 'x'.repeat(101), 7]) await expect(q.published(id, key as string)).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await q.stop();
  });

  it('every waiter of a queue shares one change feed, started by the first and stopped with the last', async () => {
    const worker = fx.open({
      concurrency: 8,
      jobs: [defineJob({ name: 'p', handler: async (payload: { n: number }, ctx) => void (await ctx.publish('n', payload.n)) })],
    });
    const reader = fx.open();
    const watch = reader.watch.bind(reader);
    let feeds = 0;
    reader.watch = (options) => {
      feeds++;
      return watch(options);
    };
    const jobs = await worker.enqueueMany(Array.from({ length: 60 }, (_, n) => ({ name: 'p', payload: { n } })));
    const waits = jobs.map(({ id }) => reader.published(id, 'n'));
    await worker.start();
    expect(await Promise.all(waits)).toEqual(jobs.map((_, n) => n));
    expect(feeds).toBe(1);
    // The last waiter stopped it: the next one starts a feed of its own.
    const [late] = await worker.enqueueMany([{ name: 'p', payload: { n: 60 } }]);
    expect(await reader.published(late!.id, 'n')).toBe(60);
    expect(feeds).toBe(2);
    await worker.stop();
  });

  it('one waiter timing out leaves the others on the shared feed waiting; the feed ends with the last', async () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const worker = fx.open({
      jobs: [
        defineJob({
          name: 'p',
          handler: async (_: unknown, ctx) => {
            await opened;
            await ctx.publish('k', 1);
          },
        }),
      ],
    });
    const reader = fx.open();
    const watch = reader.watch.bind(reader);
    const feeds = { started: 0, stopped: 0 };
    reader.watch = (options) =>
      new Observable((subscriber) => {
        feeds.started++;
        const sub = watch(options).subscribe(subscriber);
        return () => {
          feeds.stopped++;
          sub.unsubscribe();
        };
      });
    const { id } = await worker.enqueue('p', {});
    const short = reader.published(id, 'k', { timeout: 100 });
    const long = reader.published(id, 'k');
    const other = reader.published(id, 'other', { timeout: 300 });
    await worker.start();
    expect(await short).toBeNull();
    open();
    expect(await long).toBe(1);
    expect(await other).toBeNull();
    expect(feeds).toEqual({ started: 1, stopped: 1 });
    await worker.stop();
  });

  it('a feed that fails as it starts fails its waiter only: the next waiter starts a feed of its own and gets its value', async () => {
    const worker = fx.open({ jobs: [defineJob({ name: 'p', handler: async (_: unknown, ctx) => void (await ctx.publish('k', 2)) })] });
    const reader = fx.open();
    const watch = reader.watch.bind(reader);
    let broken = true;
    reader.watch = (options) => (broken ? throwError(() => new Error('feed broke')) : watch(options));
    const { id } = await worker.enqueue('p', {});
    await expect(reader.published(id, 'k')).rejects.toThrow('feed broke');
    broken = false;
    const later = reader.published(id, 'k');
    await worker.start();
    expect(await Promise.race([later, new Promise((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5000))])).toBe(2);
    await worker.stop();
  });

  it('a waiter whose feed could not start leaves nothing behind reading the store', async () => {
    // A virtual clock: the slow tick fires only when the test moves time.
    const clock = createVirtualClock(Date.now());
    const inner = fx.store();
    let reads = 0;
    const reader = fx.open({
      clock,
      store: {
        ...inner,
        publishedValues: async (id) => {
          reads++;
          return inner.publishedValues(id);
        },
      },
    });
    const { id } = await reader.enqueue('never-runs', {});
    reader.watch = () => {
      throw new Error('no feed');
    };
    await expect(reader.published(id, 'k')).rejects.toThrow('no feed');
    const after = reads;
    await clock.advance(5000);
    expect(reads).toBe(after);
  });

  it('a waiter learns at once that its queue closed', async () => {
    // On a virtual clock the slow tick never comes: only the close itself can tell the waiter.
    const q = fx.open({ clock: createVirtualClock(Date.now()) });
    const { id } = await q.enqueue('never-runs', {});
    const waiting = expect(q.published(id, 'k')).rejects.toMatchObject({ code: 'LJ_ERR_QUEUE_CLOSED' });
    await q.ping();
    await q.close();
    await waiting;
  });

  it('a job publishes under at most 100 keys: a new one past them is refused, writing nothing; a key it holds takes new values', async () => {
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'many',
          handler: async (_: unknown, ctx) => {
            for (let i = 0; i < 100; i++) await ctx.publish(`k${i}`, i);
            const refused = await ctx.publish('k100', 100).then(
              () => 'written',
              (err: { code?: string }) => err.code,
            );
            await ctx.publish('k5', 'again');
            return refused;
          },
        }),
      ],
    });
    const { id } = await q.enqueue('many', {});
    await q.start();
    expect(await q.result(id, { timeout: 20_000 })).toBe('LJ_ERR_VALIDATION');
    const published = (await q.getJob(id)).published!;
    expect(Object.keys(published)).toHaveLength(100);
    expect(published.k5).toBe('again');
    expect(published.k100).toBeUndefined();
    expect(Number(await fx.value(`SELECT count(*) FROM job_history WHERE job_id = ${id} AND event = 'job.publish'`))).toBe(101);
    await q.stop();
  });

  it('keeps the bound of 100 keys when a handler publishes under many new keys at once', async () => {
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'burst',
          handler: async (_: unknown, ctx) => {
            const answers = await Promise.all(
              Array.from({ length: 150 }, (_, i) =>
                ctx.publish(`k${i}`, i).then(
                  () => 'written',
                  (err: { code?: string }) => err.code,
                ),
              ),
            );
            return answers.filter((a) => a === 'written').length;
          },
        }),
      ],
    });
    const { id } = await q.enqueue('burst', {});
    await q.start();
    expect(await q.result(id, { timeout: 20_000 })).toBe(100);
    expect(Object.keys((await q.getJob(id)).published!)).toHaveLength(100);
    await q.stop();
  });

  it('refuses a key or a value it cannot keep, writing nothing', async () => {
    const refused: Array<string | undefined> = [];
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'bad',
          handler: async (_: unknown, ctx) => {
            for (const [key, value] of [['a b', 1], ['k', Number.NaN], ['k', 'x'.repeat(70_000)], ['k', () => 1]] as const) {
              await ctx.publish(key, value).then(
                () => refused.push('accepted'),
                (err: { code?: string }) => refused.push(err.code),
              );
            }
          },
        }),
      ],
    });
    const { id } = await q.enqueue('bad', {});
    await q.start();
    await q.result(id, { timeout: 20_000 });
    expect(refused).toEqual(Array(4).fill('LJ_ERR_VALIDATION'));
    expect((await q.getJob(id)).published).toBeUndefined();
    await q.stop();
  });
});
