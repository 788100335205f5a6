/**
 * Cron schedules on virtual time, on both stores: several queues on one
 * database fire the same schedule and make exactly one job per slot, each due
 * at its slot; a schedule outlasts the queue that stored it, and a queue that
 * starts after downtime treats the missed slots as the schedule's `missed`
 * policy says.
 */
import { describe, expect, it } from 'vitest';
import { createVirtualClock, declareJob, defineJob, type VirtualClock } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { untilOnClock } from '../helpers/wait.js';

const fx = useQueues();
const START = Date.parse('2026-06-01T00:00:00.500Z');
const HOUR = 3_600_000;

interface Row {
  key: string;
  run_at: number;
  name: string;
}

const jobsOf = (name: string) => fx.sql<Row>('SELECT key, run_at, name FROM jobs WHERE name = ? ORDER BY run_at', [name]);

const until = untilOnClock;

/** Moves the clock on in steps, each time waiting until the jobs of the slots passed exist. */
async function stepTo(clock: VirtualClock, end: number, stepMs: number, expected: (now: number) => Promise<boolean>): Promise<void> {
  while (clock.now() < end) {
    await clock.advance(Math.min(stepMs, end - clock.now()));
    await until(clock, () => expected(clock.now()), `the jobs due by ${new Date(clock.now()).toISOString()}`);
  }
}

/** A stored schedule of `name` by a cron expression, under the name as its id. */
const row = (name: string, cron: string, payload: string) => ({ id: name, name, cron, every: null, tz: null, payload, missed: 'one', startAt: null, endAt: null, limit: null, immediately: false });

describe('one job per slot', () => {
  it('three queues on one database running one seconds-level schedule make one job per slot, no gaps', async () => {
    const clock = createVirtualClock(START);
    const tick = defineJob({ name: 'tick', schedule: { cron: '*/10 * * * * *' }, handler: () => 'ok' });
    const queues = [0, 1, 2].map(() => fx.open({ clock, pollInterval: 1000, jobs: [tick] }));
    await Promise.all(queues.map((q) => q.start()));
    const slotsBy = (now: number) => Math.floor((now - START) / 10_000); // slots at :10, :20 … up to now
    await stepTo(clock, START + 120_000, 1000, async (now) => (await jobsOf('tick')).length === slotsBy(now));

    const rows = await jobsOf('tick');
    expect(rows).toHaveLength(12);
    rows.forEach((row, i) => {
      const slot = Date.parse('2026-06-01T00:00:10Z') + i * 10_000;
      expect(row.run_at).toBe(slot);
      expect(row.key).toBe(`cron:tick:${slot}`);
    });
    const [view] = await queues[1]!.schedules();
    expect(view).toMatchObject({ name: 'tick', cron: '*/10 * * * * *', tz: null, missed: 'one', payload: null });
    expect(view!.lastRunAt?.toISOString()).toBe('2026-06-01T00:02:00.000Z');
    expect(view!.nextRunAt?.toISOString()).toBe('2026-06-01T00:02:10.000Z');
  });

  it('a schedule added with queue.schedule in one queue is fired by another that only enqueues', async () => {
    const clock = createVirtualClock(START);
    const writer = fx.open({ clock });
    await writer.schedule('report', '0 * * * *', { tz: 'Europe/Berlin', payload: { kind: 'hourly' } });
    const runner = fx.open({ clock, jobs: [declareJob('report')] });
    await runner.start();
    await stepTo(clock, START + 3 * HOUR, HOUR, async (now) => (await jobsOf('report')).length === Math.floor((now - START) / HOUR));
    const rows = await fx.sql<{ run_at: number; payload: string }>('SELECT run_at, payload FROM jobs ORDER BY run_at');
    expect(rows.map((r) => new Date(r.run_at).toISOString())).toEqual(['2026-06-01T01:00:00.000Z', '2026-06-01T02:00:00.000Z', '2026-06-01T03:00:00.000Z']);
    expect(rows.map((r) => JSON.parse(r.payload))).toEqual([{ kind: 'hourly' }, { kind: 'hourly' }, { kind: 'hourly' }]);
    expect(await writer.unschedule('report')).toBe(true);
    expect(await writer.unschedule('report')).toBe(false);
    expect(await runner.schedules()).toEqual([]);
  });
});

describe('missed slots after downtime', () => {
  it("'skip' makes none, 'one' one for the latest, 'all' one per missed slot", async () => {
    const clock = createVirtualClock(START);
    const first = fx.open({ clock, jobs: [declareJob('s-skip'), declareJob('s-one'), declareJob('s-all')] });
    for (const missed of ['skip', 'one', 'all'] as const) await first.schedule(`s-${missed}`, '0 * * * *', { tz: 'UTC', missed });
    await first.start();
    const count = async () => (await fx.sql<Row>('SELECT key FROM jobs')).length;
    await stepTo(clock, START + 2 * HOUR, HOUR, async (now) => (await count()) === 3 * Math.floor((now - START) / HOUR));
    await first.close();

    // Down from 02:00:00.5 to 06:30: the slots 03:00 … 06:00 pass with no queue running.
    await clock.advance(4.5 * HOUR);
    const second = fx.open({ clock, jobs: [declareJob('s-skip'), declareJob('s-one'), declareJob('s-all')] });
    await second.start();
    await until(clock, async () => (await count()) === 6 + 1 + 4, 'the missed slots handled');
    const hours = async (name: string) => (await jobsOf(name)).map((r) => new Date(r.run_at).toISOString().slice(11, 16));
    expect(await hours('s-skip')).toEqual(['01:00', '02:00']);
    expect(await hours('s-one')).toEqual(['01:00', '02:00', '06:00']);
    expect(await hours('s-all')).toEqual(['01:00', '02:00', '03:00', '04:00', '05:00', '06:00']);
    // From here on every slot is fired again, whatever the policy.
    await stepTo(clock, Date.parse('2026-06-01T07:00:00Z'), HOUR, async () => (await count()) === 11 + 3);
    expect(await hours('s-skip')).toEqual(['01:00', '02:00', '07:00']);
  });
});

describe('daylight saving time in Europe/Berlin, on virtual time', () => {
  /** Runs '30 2 * * *' and '0 * * * *' (Berlin) through one day starting at `from` (UTC, on the hour). */
  async function runDay(from: string, hours: number): Promise<{ daily: string[]; hourly: string[] }> {
    const start = Date.parse(from) + 500;
    const clock = createVirtualClock(start);
    const q = fx.open({ clock, jobs: [declareJob('daily'), declareJob('hourly')] });
    await q.schedule('daily', '30 2 * * *', { tz: 'Europe/Berlin' });
    await q.schedule('hourly', '0 * * * *', { tz: 'Europe/Berlin' });
    await q.start();
    // Half-hour steps: every slot of both schedules lies on a step boundary.
    await stepTo(clock, start + hours * HOUR, HOUR / 2, async (now) => (await jobsOf('hourly')).length === Math.floor((now - start) / HOUR));
    await until(clock, async () => (await jobsOf('daily')).length === 1, 'the daily job');
    const at = async (name: string) => (await jobsOf(name)).map((r) => new Date(r.run_at).toISOString());
    return { daily: await at('daily'), hourly: await at('hourly') };
  }

  it('spring forward (2026-03-29): 02:30 runs once, at 03:00 CEST; the hourly one runs 23 times, once per real hour', async () => {
    const { daily, hourly } = await runDay('2026-03-28T23:00:00Z', 23); // midnight to midnight, Berlin
    expect(daily).toEqual(['2026-03-29T01:00:00.000Z']);
    expect(hourly).toEqual(Array.from({ length: 23 }, (_, i) => new Date(Date.parse('2026-03-29T00:00:00Z') + i * HOUR).toISOString()));
  });

  it('fall back (2026-10-25): 02:30 runs once, at its first occurrence (CEST); the hourly one runs 25 times', async () => {
    const { daily, hourly } = await runDay('2026-10-24T22:00:00Z', 25);
    expect(daily).toEqual(['2026-10-25T00:30:00.000Z']);
    expect(hourly).toEqual(Array.from({ length: 25 }, (_, i) => new Date(Date.parse('2026-10-24T23:00:00Z') + i * HOUR).toISOString()));
  });
});

describe('bad schedules', () => {
  it('are refused before anything is stored', async () => {
    const q = fx.open({});
    await expect(q.schedule('x', '61 * * * *')).rejects.toMatchObject({ code: 'LJ_ERR_BAD_CRON' });
    await expect(q.schedule('x', '* * * * *', { tz: 'Nowhere/Land' })).rejects.toMatchObject({ code: 'LJ_ERR_BAD_CRON' });
    await expect(q.schedule('x', '* * * * *', { missed: 'some' as never })).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    await expect(q.schedule('x', '* * * * *', { every: 5 } as never)).rejects.toMatchObject({ code: 'LJ_ERR_UNKNOWN_OPTION' });
    await expect(q.schedule('x', '* * * * *', { payload: 10n })).rejects.toMatchObject({ code: 'LJ_ERR_PAYLOAD_NOT_JSON' });
    await expect(q.schedule('', '* * * * *')).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
    expect(() => defineJob({ name: 'y', handler: () => 1, schedule: { cron: '* * *' } })).toThrow(expect.objectContaining({ code: 'LJ_ERR_BAD_CRON' }));
    expect(await q.schedules()).toEqual([]);
    expect(await fx.value('SELECT count(*) FROM schedules')).toBe(0);
  });
});

describe('what a slot job knows of its slot', () => {
  it('a retried slot job keeps its slot (job.slot, ctx.slot) while runAt moves with the retry', async () => {
    const clock = createVirtualClock(START);
    const seen: Array<{ attempt: number; slot: number | undefined }> = [];
    const job = defineJob({
      name: 'hourly',
      schedule: { cron: '0 * * * *', tz: 'UTC' },
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 60_000 } },
      handler: (_p: unknown, ctx) => {
        seen.push({ attempt: ctx.attempt, slot: ctx.slot?.getTime() });
        if (ctx.attempt === 1) throw new Error('first run fails');
      },
    });
    const q = fx.open({ clock, pollInterval: 60_000, jobs: [job] });
    await q.start();
    const slot = Date.parse('2026-06-01T01:00:00Z');
    await clock.advance(slot - START);
    await until(clock, async () => (await q.listJobs({ state: 'failed' })).length === 1, 'the first run failed');
    const [failed] = await q.listJobs({ state: 'failed' });
    expect(failed).toMatchObject({ slot: new Date(slot), runAt: new Date(slot + 60_000), key: `cron:hourly:${slot}` });
    await clock.advance(60_000);
    await until(clock, async () => (await q.listJobs({ state: 'completed' })).length === 1, 'the retry');
    expect(seen).toEqual([{ attempt: 1, slot }, { attempt: 2, slot }]);
    expect((await q.getJob(failed!.id)).slot).toEqual(new Date(slot));
    // A job that no schedule made has no slot, even with the slot in its key.
    const other = await q.enqueue('hourly', {}, { key: `hourly:${slot}` });
    expect((await q.getJob(other.id)).slot).toBeUndefined();
  });
});

describe('which queues fire a schedule', () => {
  it('a queue that neither defines nor declares the job does not fire its schedule; one that declares it does', async () => {
    const clock = createVirtualClock(START);
    const writer = fx.open({ clock });
    await writer.schedule('tick', '0 * * * *', { tz: 'UTC', missed: 'skip' });
    // A worker of other jobs only, running through three slots of 'tick'.
    // A slow poll: the clock runs through hours here, and a 5 ms poll would fire hundreds of thousands of times.
    const other = fx.open({ clock, pollInterval: 60_000, jobs: [defineJob({ name: 'other', handler: () => 'ok' })] });
    await other.start();
    const done = await other.enqueue('other', {});
    await clock.advance(3 * HOUR);
    await until(clock, async () => (await other.getJob(done.id)).state === 'completed', 'the other job');
    expect(await jobsOf('tick')).toEqual([]);
    const knower = fx.open({ clock, pollInterval: 60_000, jobs: [declareJob('tick')] });
    await knower.start();
    await clock.advance(HOUR);
    await until(clock, async () => (await jobsOf('tick')).length === 1, "a slot once a queue knows 'tick'");
    expect(new Date((await jobsOf('tick'))[0]!.run_at).toISOString()).toBe('2026-06-01T04:00:00.000Z');
  });

  it('a firing decided on a schedule that changed or went since it was read writes nothing', async () => {
    const store = fx.store();
    try {
      await store.saveSchedule(row('tick', '0 * * * *', '{}'), START);
      const [read] = await store.schedules();
      const job = { name: 'tick', state: 'pending', payload: '{}', key: `cron:tick:${START}`, priority: 0, runAt: START, retry: null, timeout: null };
      await store.saveSchedule(row('tick', '*/5 * * * *', '{}'), START + 1);
      expect(await store.fireSchedule(read!, [job], START, START + 2)).toBeNull();
      await store.deleteSchedule('tick');
      expect(await store.fireSchedule({ ...read!, cron: '*/5 * * * *' }, [job], START, START + 3)).toBeNull();
      expect(await jobsOf('tick')).toEqual([]);
      // As read: the job and the mark land together.
      await store.saveSchedule(row('tick', '0 * * * *', '{}'), START + 4);
      const [fresh] = await store.schedules();
      expect(await store.fireSchedule(fresh!, [job], START, START + 5)).toEqual([expect.objectContaining({ created: true })]);
      expect((await store.schedules())[0]!.lastSlot).toBe(START);
      expect(await jobsOf('tick')).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('a changed schedule never fires a slot older than the last one fired, even one this process had not reached yet', async () => {
    const clock = createVirtualClock(START);
    const q = fx.open({ clock, pollInterval: 1000, jobs: [defineJob({ name: 'tock', handler: () => 'ok' })] });
    await q.schedule('tock', '*/2 * * * * *');
    await q.start();
    const at = (s: number) => Date.parse('2026-06-01T00:00:00Z') + s * 1000;
    await clock.advance(at(2) + 100 - clock.now());
    await until(clock, async () => (await jobsOf('tock')).length === 1, 'the job of slot 2');
    // Another process, its clock ahead, fired slot 4 already (this one has handled slot 2 only).
    await fx.sql('UPDATE schedules SET last_slot = ? WHERE id = ?', [at(4), 'tock']);
    await clock.advance(1000); // 00:00:03.6: no slot of the old expression is due here
    // The schedule changes to every second: slot 3, of the new expression, is older than the last slot fired.
    await q.schedule('tock', '* * * * * *');
    for (let second = 4; second <= 7; second++) {
      await clock.advance(at(second) + 100 - clock.now());
      if (second > 4) await until(clock, async () => (await jobsOf('tock')).some((r) => r.run_at === at(second)), `the job of slot ${second}`);
    }
    const slots = (await jobsOf('tock')).map((r) => (r.run_at - at(0)) / 1000);
    expect(slots).toEqual([2, 5, 6, 7]);
  });

  it('a firing pass that read a schedule since unscheduled and made again writes nothing, though the new one is at the same version', async () => {
    const store = fx.store();
    try {
      await store.saveSchedule(row('report', '*/5 * * * *', '{"a":1}'), 1000);
      const [read] = await store.schedules();
      await store.deleteSchedule('report');
      await store.saveSchedule(row('report', '0 0 1 1 *', '{"a":2}'), 2000);
      expect((await store.schedules())[0]).toMatchObject({ version: read!.version, createdAt: 2000 });
      expect(await store.fireSchedule(read!, [], 300_000, 3000)).toBeNull();
      expect((await store.schedules())[0]).toMatchObject({ cron: '0 0 1 1 *', lastSlot: null });
    } finally {
      await store.close();
    }
  });

  it('a change keeps the last fired slot as the floor for a process that never handled the schedule, and for one that saw it changed and changed back', async () => {
    const clock = createVirtualClock(START);
    const at = (s: number) => Date.parse('2026-06-01T00:00:00Z') + s * 1000;
    const q = fx.open({ clock, pollInterval: 1000, jobs: [defineJob({ name: 'tock', handler: () => 'ok' })] });
    await q.schedule('tock', '*/2 * * * * *');
    await q.start();
    await clock.advance(at(1) - 300 - clock.now());
    // Running since before slot 1, it has handled no slot yet: another process, its clock ahead, fired slot 2.
    await fx.sql('UPDATE schedules SET last_slot = ? WHERE name = ?', [at(2), 'tock']);
    // Changed to every second, and again, and back: slot 1 of the new expression lies below the slot fired before the change.
    await q.schedule('tock', '* * * * * *');
    await q.schedule('tock', '*/3 * * * * *');
    await q.schedule('tock', '* * * * * *');
    for (let second = 1; second <= 4; second++) {
      await clock.advance(at(second) + 100 - clock.now());
      if (second > 2) await until(clock, async () => (await jobsOf('tock')).some((r) => r.run_at === at(second)), `the job of slot ${second}`);
    }
    const slots = (await jobsOf('tock')).map((r) => (r.run_at - at(0)) / 1000);
    expect(slots).toEqual([3, 4]);
    // A definition given again as it is changes nothing.
    const [before] = await fx.sql<{ version: number; floor_slot: number }>('SELECT version, floor_slot FROM schedules WHERE name = ?', ['tock']);
    await q.schedule('tock', '* * * * * *');
    expect(await fx.sql('SELECT version, floor_slot FROM schedules WHERE name = ?', ['tock'])).toEqual([before]);
  });
});
