import { systemClock } from '../../src/lib/clock.js';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events, nextEvent } from '../helpers/wait.js';

const fx = useQueues();

function column(path: string, sql: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(sql).pluck().all();
  } finally {
    db.close();
  }
}

describe('a job committed on its own', () => {
  it('stays out of the claim index until the next claim, and runs in claim order with jobs inserted in batches', async () => {
    let t = 1_000_000;
    const clock = { ...systemClock, now: () => (t += 10) };
    const ran: string[] = [];
    const jobs = [defineJob({ name: 'j', handler: (p: string) => void ran.push(p) })];
    const producer = fx.open({ clock });
    await producer.enqueue('j', 'a');
    await producer.enqueueMany([{ name: 'j', payload: 'b' }, { name: 'j', payload: 'c' }]);
    await producer.enqueue('j', 'd');
    await producer.enqueue('j', 'first', { priority: 5 });
    // Single commits wait outside jobs_ready; the batch went straight in and,
    // like a claim, indexed the single commit before it.
    expect(column(fx.path(), 'SELECT indexed FROM jobs ORDER BY id')).toEqual([1, 1, 1, 0, 0]);

    const consumer = fx.open({ clock, jobs, concurrency: 1, prefetch: 0 });
    const done = events(consumer.events$, (e) => e.to === 'completed', 5);
    await consumer.start();
    await done;
    expect(ran).toEqual(['first', 'a', 'b', 'c', 'd']);
    expect(column(fx.path(), 'SELECT count(*) FROM jobs WHERE indexed = 0')).toEqual([0]);
  });

  it('is found even after the newest jobs were deleted, whose ids SQLite would hand out again', async () => {
    const q = fx.open({ retention: { completed: 0 }, jobs: [defineJob({ name: 'j', handler: () => 1 })] });
    await q.start();
    const first = await q.enqueue('j', 1);
    await nextEvent(q.events$, (e) => e.job.id === first.id && e.to === 'completed');
    expect(column(fx.path(), 'SELECT count(*) FROM jobs')).toEqual([0]); // the table is empty again
    const second = await q.enqueue('j', 2);
    expect(second.id).toBeGreaterThan(first.id);
    await nextEvent(q.events$, (e) => e.job.id === second.id && e.to === 'completed', 5000);
  });
});
