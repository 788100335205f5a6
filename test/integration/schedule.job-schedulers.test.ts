/**
 * Job schedulers (BullMQ's `upsertJobScheduler`): a job name with several
 * schedules, each under its id, by a cron expression or an interval, with a
 * run limit, a start and an end; saving under an id again replaces that
 * schedule; a definition's own schedule may repeat by interval too.
 */
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { untilOnClock } from '../helpers/wait.js';

const fx = useQueues();
const START = Date.parse('2026-06-01T00:00:00.000Z');
const keys = (name: string) => fx.sql<{ key: string; run_at: number }>('SELECT key, run_at FROM jobs WHERE name = ? ORDER BY run_at, key', [name]).then((r) => r.map((x) => `${x.key.split(':')[1]}@${(Number(x.run_at) - START) / 1000}`));

const until = untilOnClock;

describe('job schedulers', () => {
  it('fires several schedules of one job, each under its id: an interval with a limit beside a cron expression', async () => {
    const clock = createVirtualClock(START);
    const q = fx.open({ clock, pollInterval: 60_000, jobs: [defineJob({ name: 'sync', handler: () => 'ok' })] });
    await q.schedule('sync', { every: '2s' }, { id: 'sync-fast', limit: 3, immediately: true, payload: { fast: true } });
    await q.schedule('sync', '*/5 * * * * *', { id: 'sync-slow' });
    await q.start();
    for (let t = 1; t <= 10; t++) {
      await clock.advance(1000);
      const want = t >= 5 ? 4 + Math.floor(t / 5) - 1 : Math.min(3, Math.floor(t / 2) + 1);
      await until(clock, async () => (await keys('sync')).length >= want, `the jobs due at +${t}s`);
    }
    await q.stop();
    // The interval: at once, +2 s, +4 s, then its limit of 3; the cron expression: every 5 s.
    expect(await keys('sync')).toEqual(['sync-fast@0', 'sync-fast@2', 'sync-fast@4', 'sync-slow@5', 'sync-slow@10']);
    const views = await q.schedules();
    expect(views.map((v) => [v.id, v.name, v.every, v.cron, v.count, v.limit])).toEqual([
      ['sync-fast', 'sync', 2000, null, 3, 3],
      ['sync-slow', 'sync', null, '*/5 * * * * *', 2, null],
    ]);
    expect(views[0]!.nextRunAt).toBeNull(); // its limit is spent
    expect(views[1]!.nextRunAt).toEqual(new Date(START + 15_000));
    const [fast] = await fx.sql<{ payload: string }>("SELECT payload FROM jobs WHERE key LIKE 'cron:sync-fast:%' LIMIT 1");
    expect(JSON.parse(fast!.payload)).toEqual({ fast: true });
  });

  it('saving under an id again replaces that schedule only; unschedule takes the id', async () => {
    const clock = createVirtualClock(START);
    const q = fx.open({ clock, jobs: [defineJob({ name: 'mail', handler: () => 'ok' })] });
    await q.schedule('mail', '0 9 * * *', { id: 'morning' });
    await q.schedule('mail', '0 18 * * *', { id: 'evening' });
    await q.schedule('mail', { every: '1h' }, { id: 'morning', endDate: START + 10 * 3_600_000 });
    expect((await q.schedules()).map((v) => [v.id, v.cron, v.every, v.endDate])).toEqual([
      ['evening', '0 18 * * *', null, null],
      ['morning', null, 3_600_000, new Date(START + 10 * 3_600_000)],
    ]);
    expect(await q.unschedule('morning')).toBe(true);
    expect(await q.unschedule('mail')).toBe(false); // no schedule has the job's name as its id
    expect((await q.schedules()).map((v) => v.id)).toEqual(['evening']);
  });

  it('a definition repeats by interval from its start date, and stops at its end date', async () => {
    const clock = createVirtualClock(START);
    const q = fx.open({ clock, pollInterval: 60_000, jobs: [defineJob({ name: 'beat', schedule: { every: '3s', startDate: START + 2000, endDate: START + 9000 }, handler: () => 'ok' })] });
    await q.start();
    for (let t = 1; t <= 12; t++) {
      await clock.advance(1000);
      const want = t < 2 ? 0 : Math.min(3, Math.floor((t - 2) / 3) + 1);
      await until(clock, async () => (await keys('beat')).length >= want, `the jobs due at +${t}s`);
    }
    await q.stop();
    expect(await keys('beat')).toEqual(['beat@2', 'beat@5', 'beat@8']);
    expect((await q.schedules())[0]).toMatchObject({ id: 'beat', every: 3000, startDate: new Date(START + 2000), endDate: new Date(START + 9000), nextRunAt: null });
  });
});
