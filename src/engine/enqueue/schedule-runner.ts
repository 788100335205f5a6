/**
 * Fires the schedules stored in the database (a cron expression or an
 * interval, core/repeat.ts) whose job the queue defines or declares, in
 * every started queue. One timer on the queue's clock waits for
 * the earliest next slot across them (or a refresh, to pick up schedules
 * other processes added); each pass reads the schedules, and per schedule
 * enqueues a job per slot to fire and records the last slot handled, in one
 * transaction that lands only while the schedule is still as the pass read it.
 *
 * Exactly one job per slot however many processes fire: a slot's job has
 * `runAt` = the slot and the idempotency key `cron:<id>:<slot>`, so a
 * second process's insert for the same slot returns the first job. The
 * stored last slot only saves work (and tells a restarted process which slots
 * it missed); correctness rests on the key. A schedule with a run limit
 * fires only slots after the stored last one, and its firing lands only
 * while the count of fired slots is still the one it read: at most `limit`
 * jobs, however many processes race.
 */
import { ValidationError } from '../../errors.js';
import type { TimerHandle } from '../../lib/clock.js';
import type { ScheduleRecord } from '../../store/store.js';
import { DEFAULT_MISSED, MISSED_POLICIES, slotKey, type MissedPolicy } from '../core/cron.js';
import { nextRepeatSlot, planRepeat } from '../core/repeat.js';
import { repeatOf } from '../core/schedules.js';
import type { Engine } from '../core/engine.js';

/** The longest wait between passes: schedules added in another process start within this. */
export const SCHEDULE_REFRESH_MS = 60_000;
/** Wait after a pass failed (the database was away). */
const RETRY_MS = 5_000;

export interface ScheduleRunner {
  /** Starts firing; slots before this moment count as missed (the `missed` policy applies to them). */
  start(): void;
  /** Runs a pass now (a schedule was added or changed in this process). */
  poke(): void;
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

/** `jobNames`: the jobs the queue defines or declares; only their schedules fire here. */
export function createScheduleRunner(engine: Engine, jobNames: ReadonlySet<string>): ScheduleRunner {
  const { store, clock, logger } = engine;
  let stopped = true;
  let runningSince = 0;
  let timer: TimerHandle | undefined;
  let pass: Promise<void> | undefined;
  let again = false;

  const arm = (ms: number) => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = stopped ? undefined : clock.setTimeout(run, ms);
  };

  /**
   * The last slot this process handled, per schedule. A running process goes
   * on from here even when the stored last slot is later: a process that
   * started meanwhile may have recorded slots it took as missed (and, under
   * 'skip' or 'one', gave up) that this one, running then, fires as due. Its
   * inserts for slots another process fired meet their keys. Only while the
   * schedule is the version it handled: once it changed (even back to what it
   * was), the stored last slot is the floor (a change keeps it, so the past
   * is never fired again; below it lie slots of the new expression that no
   * process ever owed).
   */
  let handled = new Map<string, { slot: number; version: number }>();

  const fireOne = async (s: ScheduleRecord, now: number): Promise<number | null> => {
    const repeat = repeatOf(s);
    const missed = (MISSED_POLICIES as readonly string[]).includes(s.missed) ? (s.missed as MissedPolicy) : DEFAULT_MISSED;
    const left = s.limit === null ? Number.POSITIVE_INFINITY : s.limit - s.fired;
    if (left <= 0) return null; // its limit is spent: it fires no more
    // Before the first slot: the creation itself, or just before it when the first slot is at it (`immediately`).
    const origin = s.immediately ? s.createdAt - 1 : s.createdAt;
    const stored = s.lastSlot ?? origin;
    // Before its first pass, this process has run the schedule since it started.
    const mine = handled.get(s.id);
    const same = mine === undefined || mine.version === s.version;
    // Under a limit, only slots after the stored last one: each counts once, whichever process fires it.
    const own = s.limit !== null ? stored : same ? Math.max(mine?.slot ?? runningSince - 1, origin) : stored;
    // Never at or before the floor, whatever this process handled: a change keeps the past from firing again
    // (a process that had not read the schedule since before the change owes no slot of the new one below it).
    const plan = planRepeat(repeat, { after: Math.max(Math.min(stored, own), s.floorSlot ?? Number.NEGATIVE_INFINITY), now, runningSince, missed });
    if (plan.handled === null) return nextRepeatSlot(repeat, now);
    const fire = plan.fire.slice(0, left);
    const payload: unknown = fire.length > 0 ? JSON.parse(s.payload) : undefined;
    const jobs = fire.map((slot) => engine.newJob({ name: s.name, payload, options: { key: slotKey(s.id, slot), runAt: slot } }, now));
    // The jobs and the mark land together, and only while the schedule is still as read here.
    const results = await engine.fireSchedule(s, jobs, plan.handled);
    if (results === null) {
      logger.debug({ job: s.name, schedule: s.id }, 'schedule changed while it fired; read again');
      again = true;
      return null;
    }
    const created = results.filter((r) => r.created).length;
    if (created > 0) logger.debug({ job: s.name, schedule: s.id, created, slots: fire.length }, 'schedule fired');
    handled.set(s.id, { slot: plan.handled, version: s.version });
    return fire.length < left ? nextRepeatSlot(repeat, now) : null;
  };

  /** One pass over every schedule; resolves with the wait until the next. */
  const firePass = async (): Promise<number> => {
    const now = clock.now();
    let next = now + SCHEDULE_REFRESH_MS;
    // Only schedules of jobs this queue knows (defines, or declares to enqueue them): a queue
    // that has never heard of a job would pile up its jobs after every process running it
    // has gone. Its slots count as missed until a queue that knows it starts.
    const schedules = (await store.schedules()).filter((s) => jobNames.has(s.name));
    handled = new Map([...handled].filter(([id]) => schedules.some((s) => s.id === id)));
    for (const s of schedules) {
      try {
        const at = await fireOne(s, now);
        if (at !== null) next = Math.min(next, at);
      } catch (err) {
        // One bad schedule (an expression or payload this version refuses) must not stop the others.
        if (!(err instanceof ValidationError || err instanceof TypeError || err instanceof SyntaxError)) throw err;
        logger.error({ job: s.name, schedule: s.id, err }, 'schedule cannot fire: fix or unschedule it');
      }
    }
    return next - clock.now();
  };

  function run(): void {
    timer = undefined;
    if (pass) {
      again = true;
      return;
    }
    pass = firePass()
      .then(
        (waitMs) => waitMs,
        (err: unknown) => {
          logger.warn({ err }, 'schedules: firing pass failed; trying again');
          return RETRY_MS;
        },
      )
      .then((waitMs) => {
        pass = undefined;
        if (again) {
          again = false;
          arm(0);
        } else arm(waitMs);
      });
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      runningSince = clock.now();
      handled = new Map();
      arm(0);
    },
    poke() {
      if (stopped) return;
      if (pass) again = true; // the pass under way may have read the schedules before the change
      else arm(0);
    },
    async stop() {
      stopped = true;
      arm(0);
      await pass;
    },
  };
}
