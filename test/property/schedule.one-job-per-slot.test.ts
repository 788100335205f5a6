/**
 * Interleavings of several queues (each on a connection of its own, as
 * separate processes would be) firing one seconds-level schedule, ordered by
 * fast-check's scheduler: every store call a firing pass makes (reading the
 * schedules, then inserting the slots' jobs with the slot recorded) starts
 * and answers when fast-check says. The queues start at random moments and the clock
 * moves in random steps.
 *
 * Property: every slot from the first to the last has exactly one job, due at
 * its slot and keyed by it, whatever the missed-slot policy: a queue that
 * starts while others run gives up only slots before any of them started.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createQueue, createVirtualClock, declareJob, type Store } from '../../src/index.js';
import type { Clock } from '../../src/lib/clock.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { propertyRuns } from '../helpers/property-runs.js';

const START = Date.parse('2026-06-01T00:00:00.250Z');
const FIRST_SLOT = Date.parse('2026-06-01T00:00:01Z');

/** The store calls of a firing pass, each started and answered when fast-check says. */
function scheduled(inner: Store, s: fc.Scheduler, who: string): Store {
  const step =
    <A extends unknown[], R>(label: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await s.schedule(Promise.resolve(), `${who} ${label} (call)`);
      const value = await fn(...args);
      await s.schedule(Promise.resolve(), `${who} ${label} (answer)`);
      return value;
    };
  return {
    ...inner,
    schedules: step('schedules', inner.schedules),
    fireSchedule: step('fireSchedule', inner.fireSchedule),
  };
}

/** A queue that knows job `tick` (schedules fire only in queues that know their job), on a store of its own whose calls fast-check orders. */
function tickQueue(path: string, clock: Clock, storeClock: Clock, s: fc.Scheduler, i: number) {
  return createQueue({
    store: scheduled(createSqliteStore({ path, durability: 'normal', cacheMiB: 2, busyTimeoutMs: 5000, history: false, clock: storeClock }), s, `q${i}`),
    clock,
    logger: silentLogger,
    jobs: [declareJob('tick')],
  });
}

describe('several queues firing one schedule, in any interleaving', () => {
  it('make exactly one job per slot, with no gaps', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.integer({ min: 0, max: 4000 }), { minLength: 2, maxLength: 3 }),
        fc.array(fc.integer({ min: 100, max: 2500 }), { minLength: 4, maxLength: 10 }),
        fc.constantFrom('skip' as const, 'one' as const, 'all' as const),
        async (s, startOffsets, steps, missed) => {
          const file = tempDbPath();
          const clock = createVirtualClock(START);
          const queues = startOffsets.map((_, i) => tickQueue(file.path, clock, clock, s, i));
          try {
            await queues[0]!.schedule('tick', '* * * * * *', { missed });
            let firstStart: number | undefined;
            const waiting = startOffsets.map((offset, i) => ({ at: START + offset, queue: queues[i]! }));
            // Whether some pass must have fired: a queue running, then a step that began with a slot due since it started.
            let mustHaveFired = false;
            for (const ms of steps) {
              if (firstStart !== undefined && clock.now() >= Math.ceil(firstStart / 1000) * 1000) mustHaveFired = true;
              await clock.advance(ms);
              for (const w of waiting.filter((w) => w.at <= clock.now())) {
                waiting.splice(waiting.indexOf(w), 1);
                await s.waitFor(w.queue.start());
                firstStart ??= clock.now();
              }
              await s.waitIdle();
            }
            // The last passes finish under the scheduler too.
            await s.waitFor(Promise.all(queues.map((q) => q.close())));

            const db = new Database(file.path, { readonly: true });
            const rows = db.prepare("SELECT key, run_at FROM jobs WHERE name = 'tick' ORDER BY run_at").all() as Array<{ key: string; run_at: number }>;
            db.close();
            const fired = new Set(rows.map((r) => r.run_at));
            expect(fired.size).toBe(rows.length);
            for (const r of rows) expect(r.key).toBe(`cron:tick:${r.run_at}`);
            if (rows.length > 0) {
              // 'all' fires every slot since the schedule was made; the others, at least every slot since a queue ran.
              if (missed === 'all') expect(rows[0]!.run_at).toBe(FIRST_SLOT);
              else expect(rows[0]!.run_at).toBeLessThanOrEqual(Math.ceil(firstStart! / 1000) * 1000);
              expect(rows.at(-1)!.run_at - rows[0]!.run_at).toBe((rows.length - 1) * 1000);
            }
            if (mustHaveFired) expect(rows.length).toBeGreaterThan(0);
          } finally {
            await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
            file.cleanup();
          }
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  }, 120_000);
});

describe('queues on clocks 700 ms apart firing one schedule that is changed meanwhile, in any interleaving', () => {
  it('never fire a slot twice, nor, after a change, a slot no later than the last one fired before it', async () => {
    const SKEWS = [0, -700, 700];
    const EXPRESSIONS = ['* * * * * *', '*/2 * * * * *', '*/3 * * * * *'];
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.record({ ms: fc.integer({ min: 100, max: 2500 }), change: fc.option(fc.nat(EXPRESSIONS.length - 1), { freq: 3 }), by: fc.nat(SKEWS.length - 1) }), { minLength: 4, maxLength: 10 }),
        fc.constantFrom('skip' as const, 'one' as const, 'all' as const),
        async (s, steps, missed) => {
          const file = tempDbPath();
          const base = createVirtualClock(START);
          // Each queue's own clock, skewed from the base its store's timers run on.
          const clocks = SKEWS.map((skew) => ({ now: () => base.now() + skew, setTimeout: base.setTimeout, clearTimeout: base.clearTimeout }));
          const queues = clocks.map((clock, i) => tickQueue(file.path, clock, base, s, i));
          const look = new Database(file.path, { readonly: true });
          const lastSlot = () => (look.prepare("SELECT last_slot FROM schedules WHERE name = 'tick'").pluck().get() as number | null) ?? Number.NEGATIVE_INFINITY;
          const lastId = () => (look.prepare('SELECT max(id) FROM jobs').pluck().get() as number | null) ?? 0;
          /** Per change: the last slot fired before it (read before it, so no later), and the last job before its answer. */
          const changes: Array<{ floor: number; after: number }> = [];
          try {
            let current = EXPRESSIONS[0]!;
            await queues[0]!.schedule('tick', current, { missed });
            await s.waitFor(Promise.all(queues.map((q) => q.start())));
            for (const step of steps) {
              await base.advance(step.ms);
              // A change of expression (the same one given again changes nothing: a queue behind may still fill a slot it never fired).
              if (step.change !== null && EXPRESSIONS[step.change] !== current) {
                current = EXPRESSIONS[step.change]!;
                const floor = lastSlot();
                await s.waitFor(queues[step.by]!.schedule('tick', current, { missed }));
                changes.push({ floor, after: lastId() });
              }
              await s.waitIdle();
            }
            await s.waitFor(Promise.all(queues.map((q) => q.close())));

            const rows = look.prepare("SELECT id, run_at FROM jobs WHERE name = 'tick' ORDER BY id").all() as Array<{ id: number; run_at: number }>;
            expect(new Set(rows.map((r) => r.run_at)).size).toBe(rows.length);
            // A change keeps the last fired slot: the past is not fired again (on whichever clock the firing queue reads).
            for (const c of changes) {
              for (const r of rows) if (r.id > c.after) expect(r.run_at, `slot ${r.run_at} fired after a change made once ${c.floor} had fired`).toBeGreaterThan(c.floor);
            }
          } finally {
            look.close();
            await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
            file.cleanup();
          }
        },
      ),
      { numRuns: propertyRuns(60) },
    );
  }, 120_000);
});

describe('several queues firing two schedules of one job, an interval with a run limit beside a cron expression, in any interleaving', () => {
  it('never fire an interval slot twice nor past its limit, and count what they fired; the cron schedule keeps one job per slot', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 2, maxLength: 3 }),
        fc.array(fc.integer({ min: 100, max: 2500 }), { minLength: 4, maxLength: 10 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom('skip' as const, 'one' as const, 'all' as const),
        fc.boolean(),
        async (s, startOffsets, steps, limit, missed, immediately) => {
          const file = tempDbPath();
          const clock = createVirtualClock(START);
          const queues = startOffsets.map((_, i) => tickQueue(file.path, clock, clock, s, i));
          try {
            await queues[0]!.schedule('tick', { every: 1000 }, { id: 'tick-every', limit, missed, immediately });
            await queues[0]!.schedule('tick', '* * * * * *', { missed: 'all' });
            const waiting = startOffsets.map((offset, i) => ({ at: START + offset, queue: queues[i]! }));
            for (const ms of steps) {
              await clock.advance(ms);
              for (const w of waiting.filter((w) => w.at <= clock.now())) {
                waiting.splice(waiting.indexOf(w), 1);
                await s.waitFor(w.queue.start());
              }
              await s.waitIdle();
            }
            await s.waitFor(Promise.all(queues.map((q) => q.close())));

            const db = new Database(file.path, { readonly: true });
            const rows = db.prepare("SELECT key, run_at FROM jobs WHERE name = 'tick' ORDER BY run_at").all() as Array<{ key: string; run_at: number }>;
            const fired = db.prepare("SELECT fired FROM schedules WHERE id = 'tick-every'").pluck().get() as number;
            db.close();
            const every = rows.filter((r) => r.key.startsWith('cron:tick-every:'));
            const cron = rows.filter((r) => r.key.startsWith('cron:tick:'));
            expect(every.length + cron.length).toBe(rows.length);
            expect(every.length).toBeLessThanOrEqual(limit);
            expect(fired).toBe(every.length);
            expect(new Set(every.map((r) => r.run_at)).size).toBe(every.length);
            // Slots of the interval: its creation (with immediately) and each second after.
            for (const r of every) {
              expect(r.key).toBe(`cron:tick-every:${r.run_at}`);
              expect((r.run_at - START) % 1000).toBe(0);
              expect(r.run_at).toBeGreaterThanOrEqual(immediately ? START : START + 1000);
            }
            expect(new Set(cron.map((r) => r.run_at)).size).toBe(cron.length);
            if (cron.length > 0) expect(cron.at(-1)!.run_at - cron[0]!.run_at).toBe((cron.length - 1) * 1000);
          } finally {
            await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
            file.cleanup();
          }
        },
      ),
      { numRuns: propertyRuns(60) },
    );
  }, 120_000);
});
