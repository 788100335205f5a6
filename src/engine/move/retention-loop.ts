/**
 * The retention loop of a started queue: every few seconds (and at once when
 * it starts), deletes what the retention rules no longer keep
 * (core/retention.ts), in transactions of at most PURGE_BATCH jobs, yielding
 * between them, and forgets kept outcomes older than `keptOutcomeMs`. Every
 * started queue runs it, with or without rules of its own: the job names'
 * own rules come from the store (each queue saves its definitions' first),
 * and outcomes another process kept are forgotten here too. `stop()` waits
 * for a pass under way, which ends after its current transaction.
 */
import type { Clock, TimerHandle } from '../../lib/clock.js';
import type { Store } from '../../store/store.js';
import type { OutageLog } from '../core/outage.js';
import type { PurgeTask, RetentionRules } from '../core/retention.js';
import type { SharedTime } from '../core/shared-time.js';

/** Rows deleted per transaction: small, so the claim loop is never held up long. */
const PURGE_BATCH = 500;
/** How often a pass runs. */
const RETENTION_EVERY_MS = 5000;
const WHAT = 'deleting old jobs';

export interface RetentionLoopDeps {
  store: Pick<Store, 'purgeFinished' | 'purgeNamed' | 'trimOutcomes' | 'saveNameRetention' | 'nameRetention'>;
  clock: Clock;
  /** The database's clock: a job whose throttle window is still open on it stays. */
  time: Pick<SharedTime, 'now'>;
  rules: RetentionRules;
  keptOutcomeMs: number;
  outage: OutageLog;
}

export function createRetentionLoop(deps: RetentionLoopDeps): { start(): void; stop(): Promise<void> } {
  const { store, clock, rules } = deps;
  let stopped = true;
  let saved = false;
  let timer: TimerHandle | undefined;
  let pass: Promise<void> | undefined;
  const yieldNow = () => new Promise((resolve) => setImmediate(resolve));

  const purge = async (task: PurgeTask): Promise<number> => {
    const before = task.ageMs === undefined ? undefined : clock.now() - task.ageMs;
    const throttleAt = (await deps.time.now()).lo;
    // A rule of 0: the finishing move would have deleted the job, keeping its outcome; so do these deletes.
    const keepOutcomes = task.ageMs === 0 || ('count' in task && task.count === 0);
    if (!('name' in task)) return store.purgeFinished(task.state, before!, PURGE_BATCH, { except: task.except, throttleAt, keepOutcomes });
    return store.purgeNamed({ name: task.name, state: task.state, throttleAt, keepOutcomes, ...(before === undefined ? {} : { before }), ...(task.count === undefined ? {} : { keep: task.count }) }, PURGE_BATCH);
  };

  const once = async () => {
    const stored = await store.nameRetention();
    if (!saved) {
      // This process's definitions first: other processes learn its names' rules from the store
      // (written only where they differ: a queue without rules of its own writes nothing).
      const held = new Map(stored.map((r) => [r.name, r.rule]));
      const changed = rules.own().filter((r) => (held.get(r.name) ?? null) !== r.rule);
      if (changed.length > 0) await store.saveNameRetention(changed, clock.now());
      saved = true;
    }
    rules.learn(stored);
    for (const task of rules.tasks()) {
      while (!stopped && (await purge(task)) === PURGE_BATCH) await yieldNow();
    }
    while (!stopped && (await store.trimOutcomes(clock.now() - deps.keptOutcomeMs, PURGE_BATCH)) === PURGE_BATCH) await yieldNow();
  };

  const run = () => {
    timer = undefined;
    pass = once().then(
      () => deps.outage.recovered(WHAT),
      (err: unknown) => void deps.outage.failed(WHAT, err),
    );
    void pass.then(() => {
      pass = undefined;
      if (!stopped) timer = clock.setTimeout(run, RETENTION_EVERY_MS);
    });
  };

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      run();
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      await pass;
    },
  };
}
