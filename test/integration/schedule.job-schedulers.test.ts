/**
 * Job schedulers (BullMQ's `upsertJobScheduler`): a job name with several
 * schedules, each under its id, by a cron expression or an interval, with a
 * run limit, a start and an end; saving under an id again replaces that
 * schedule; a definition's own schedule may repeat by interval too.
 */
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob } from '../../src/index.js';
import { ValidationError } from '../../src/errors.js';
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

  it('a schedule changed after its limit was spent starts from the change, not from the slots it left unfired', async () => {
    const clock = createVirtualClock(START);
    const q = fx.open({ clock, pollInterval: 60_000, jobs: [defineJob({ name: 'tick', handler: () => 'ok' })] });
    await q.schedule('tick', { every: '1s' }, { limit: 2 });
    await q.start();
    for (let t = 1; t <= 3; t++) {
      await clock.advance(1000);
      await until(clock, async () => (await keys('tick')).length >= Math.min(2, t), `the jobs due at +${t}s`);
    }
    // Both run before the clock jumps: a job still waiting to start would outlive its lease in the jump and be
    // handed back, due anew at the jump's end (its run time, which this test reads, moved with it).
    await until(clock, async () => Number(await fx.value("SELECT count(*) FROM jobs WHERE name = 'tick' AND state = 'completed'")) === 2, 'both limited jobs run');
    await clock.advance(60_000);
    await q.schedule('tick', { every: '1s' }, { limit: 100 }); // at +63 s
    await clock.advance(2000);
    await until(clock, async () => (await keys('tick')).length >= 5, 'the jobs after the change');
    await q.stop();
    expect(await keys('tick')).toEqual(['tick@1', 'tick@2', 'tick@63', 'tick@64', 'tick@65']); // from the change's own instant on
  });

  it('immediately fires at once, at the save (its start date past) or at the start date, even under missed: skip; the view says it is due', async () => {
    const clock = createVirtualClock(START);
    const q = fx.open({ clock, pollInterval: 60_000, jobs: [defineJob({ name: 'beat', schedule: { every: '1h', immediately: true, missed: 'skip' }, handler: () => 'ok' }), defineJob({ name: 'late', handler: () => 'ok' })] });
    await q.schedule('late', { every: '1h' }, { immediately: true, startDate: START - 3_600_000 });
    expect((await q.schedules()).find((v) => v.id === 'late')!.nextRunAt).toEqual(new Date(START));
    await q.start();
    await until(clock, async () => (await keys('beat')).length === 1 && (await keys('late')).length === 1, 'the at-once jobs');
    await q.stop();
    expect([...(await keys('beat')), ...(await keys('late'))]).toEqual(['beat@0', 'late@0']);
  });

  it("a definition whose end date has passed is stored and fires no more; a schedule under another job name's id, or with a loose date, is refused", async () => {
    const clock = createVirtualClock(START);
    const q = fx.open({ clock, jobs: [defineJob({ name: 'old', schedule: { every: '1h', endDate: START - 1000 }, handler: () => 'ok' }), defineJob({ name: 'mail', handler: () => 'ok' })] });
    await q.start();
    expect((await q.schedules())[0]).toMatchObject({ id: 'old', nextRunAt: null });
    await expect(q.schedule('mail', { every: '1h' }, { id: 'old' })).rejects.toThrow(/name of job "old"/);
    for (const startDate of ['1', 'June 5', '2027-02-30']) await expect(q.schedule('mail', { every: '1h' }, { startDate })).rejects.toBeInstanceOf(ValidationError);
    await expect(q.schedule('mail', { every: '1h' }, { missed: null as never })).rejects.toBeInstanceOf(ValidationError);
    await expect(q.schedule('mail', { every: 8.64e15 })).rejects.toThrow(/between a second/);
    await q.stop();
  });
});
