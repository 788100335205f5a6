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
          const queues = startOffsets.map((_, i) =>
            createQueue({
              store: scheduled(createSqliteStore({ path: file.path, durability: 'normal', cacheMiB: 2, busyTimeoutMs: 5000, history: false, clock }), s, `q${i}`),
              clock,
              logger: silentLogger,
              // Schedules fire only in queues that know their job.
              jobs: [declareJob('tick')],
            }),
          );
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
