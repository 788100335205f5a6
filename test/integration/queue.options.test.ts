import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { TEST_STORE, useQueues } from '../helpers/queue-fixture.js';
import { events } from '../helpers/wait.js';

const fx = useQueues();

describe('queue options', () => {
  it('history: false writes no transition rows, and the jobs still run', async () => {
    const q = fx.open({ history: false, jobs: [defineJob({ name: 'j', handler: () => 1 })] });
    await q.enqueueMany(Array.from({ length: 20 }, (_, i) => ({ name: 'j', payload: i })));
    const done = events(q.events$, (e) => e.to === 'completed', 20);
    await q.start();
    await done;
    expect(await fx.sql('SELECT count(*) AS n FROM job_history')).toEqual([{ n: 0 }]);
    expect(await fx.sql("SELECT count(*) AS n FROM jobs WHERE state = 'completed'")).toEqual([{ n: 20 }]);
  });

  it('opens the file in WAL mode, with either durability', async () => {
    await fx.open({ durability: 'full' }).enqueue('a', 1);
    await fx.open({ durability: 'normal' }).enqueue('a', 2);
    // PostgreSQL: durability is the server's; the option is accepted and the jobs are written.
    if (TEST_STORE === 'postgres') {
      expect(await fx.value('SELECT count(*) FROM jobs')).toBe(2);
    } else {
      const raw = new Database(fx.path(), { readonly: true });
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      raw.close();
    }
  });

  it('concurrency bounds the jobs running at once', async () => {
    let running = 0;
    let peak = 0;
    const q = fx.open({
      concurrency: 3,
      jobs: [
        defineJob({
          name: 'j',
          handler: async () => {
            peak = Math.max(peak, ++running);
            await new Promise((r) => setTimeout(r, 5));
            running--;
          },
        }),
      ],
    });
    await q.enqueueMany(Array.from({ length: 30 }, (_, i) => ({ name: 'j', payload: i })));
    const done = events(q.events$, (e) => e.to === 'completed', 30);
    await q.start();
    await done;
    expect(peak).toBe(3);
    // The last completion is announced just before its worker actor goes idle.
    for (let i = 0; i < 100 && q.workers().some((w) => w.state !== 'idle'); i++) await new Promise((r) => setImmediate(r));
    expect(q.workers().map((w) => w.state)).toEqual(['idle', 'idle', 'idle']);
    expect(q.workers().reduce((n, w) => n + w.processed, 0)).toBe(30);
  });
});
