/**
 * A job id names one job forever: after the newest jobs were deleted (by
 * retention at once, or by time), no insert path hands their ids out again,
 * so getJob(oldId) or cancel(oldId) can never reach an unrelated job.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/create-engine.js';
import { defineJob } from '../../src/index.js';
import { systemClock } from '../../src/lib/clock.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { events, nextEvent } from '../helpers/wait.js';

const fx = useQueues();

describe('job ids are never reused', () => {
  it('after retention 0 deleted the newest job, enqueueMany and enqueue get new ids', async () => {
    const q = fx.open({ retention: { completed: 0 }, jobs: [defineJob({ name: 'j', handler: () => 'ok' })] });
    const [first, second] = await q.enqueueMany([{ name: 'j', payload: 1 }, { name: 'j', payload: 2 }]);
    const done = events(q.events$, (e) => e.to === 'completed', 2);
    await q.start();
    await done;
    await q.stop();
    expect((await q.stats()).total).toBe(0); // both deleted as they completed
    // A batch (one transaction), then a single commit, then a keyed insert: every insert path.
    const [third, thirdToo] = await q.enqueueMany([{ name: 'other', payload: 3 }, { name: 'other', payload: 3 }]);
    const fourth = await q.enqueue('other', 4);
    const fifth = await q.enqueueMany([{ name: 'other', payload: 5, options: { key: 'k' } }]);
    const ids = [first!.id, second!.id, third!.id, thirdToo!.id, fourth.id, fifth[0]!.id];
    expect(new Set(ids).size).toBe(ids.length);
    expect(third!.id).toBeGreaterThan(second!.id);
    await expect(q.getJob(second!.id)).rejects.toMatchObject({ code: 'LJ_ERR_JOB_NOT_FOUND' });
  });

  it('after a time-based purge emptied the table, ids go on from where they were', async () => {
    const clock = { ...systemClock, t: 1_000_000, now: (): number => clock.t };
    const store = fx.store();
    const engine = createEngine({ store, clock, logger: silentLogger, jobs: [], retention: { cancelled: { ageMs: 1000 } }, maxPayloadBytes: 1024 });
    try {
      // A producer only: single inserts (committed on their own), then cancelled and purged.
      const a = await engine.enqueue(engine.newJob({ name: 'j', payload: 1 }, clock.t));
      const b = await engine.enqueue(engine.newJob({ name: 'j', payload: 2 }, clock.t));
      for (const id of [a.id, b.id]) {
        const job = (await store.get(id))!;
        expect(await engine.apply(job, { type: 'job.cancel' })).toMatchObject({ accepted: true, committed: true });
      }
      clock.t += 5000;
      expect(await store.purgeFinished('cancelled', clock.t - 1000, 100)).toBe(2);
      expect((await store.stats()).total).toBe(0);
      const [batch] = await engine.enqueueMany([engine.newJob({ name: 'j', payload: 3 }, clock.t), engine.newJob({ name: 'j', payload: 4 }, clock.t)]);
      const single = await engine.enqueue(engine.newJob({ name: 'j', payload: 5 }, clock.t));
      expect(batch!.id).toBeGreaterThan(b.id);
      expect(single.id).toBeGreaterThan(batch!.id);
    } finally {
      await engine.close();
    }
  });

  it('a cancel aimed at a deleted job finds nothing instead of a newer job', async () => {
    const q = fx.open({ retention: { completed: 0 }, jobs: [defineJob({ name: 'j', handler: () => 'ok' })] });
    const { id: old } = await q.enqueue('j', 1);
    const done = nextEvent(q.events$, (e) => e.job.id === old && e.to === 'completed');
    await q.start();
    await done;
    await q.stop();
    const [fresh] = await q.enqueueMany([{ name: 'later', payload: 2 }, { name: 'later', payload: 3 }]);
    expect(fresh!.id).not.toBe(old);
    await expect(q.cancel(old)).rejects.toMatchObject({ code: 'LJ_ERR_JOB_NOT_FOUND' });
    expect(await fx.value('SELECT state FROM jobs WHERE id = ?', [fresh!.id])).toBe('pending');
  });

  it('history ids are never reused either, and every deletion is counted', async () => {
    // Retention 0 deletes each job with its history as it completes: the newest history rows go with it.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const q = fx.open({ retention: { completed: 0 }, jobs: [defineJob({ name: 'j', handler: () => gate.then(() => 'ok') })] });
    const top = () => fx.value<number>('SELECT coalesce(max(id), 0) FROM job_history');
    const deleted = () => fx.value<number>("SELECT value FROM queue_meta WHERE key = 'deleted'");
    {
      const { id } = await q.enqueue('j', 1);
      const claimed = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'processing');
      const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
      await q.start();
      await claimed;
      const before = await top(); // the claim's row, while the job runs
      release();
      await done;
      await q.stop();
      // A reader that had read every history row so far (SQLite keeps the newest id in a tombstone row).
      const seen = Math.max(before, await top());
      expect(seen).toBeGreaterThan(0);
      expect(await deleted()).toBe(1);
      const { id: next } = await q.enqueue('other', 2);
      await q.cancel(next);
      const fresh = (await fx.sql<{ id: number }>('SELECT id FROM job_history WHERE job_id = ?', [next])).map((r) => r.id);
      expect(fresh).toHaveLength(1);
      expect(fresh[0]).toBeGreaterThan(seen);
      // The tombstone keeping the id belongs to no job: a job's history never shows it.
      expect((await q.history(next)).map((t) => t.event)).toEqual(['job.enqueue', 'job.cancel']);
    }
  });
});
