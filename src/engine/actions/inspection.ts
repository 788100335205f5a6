/**
 * What the facade reads and controls of the store, in one place: a job and
 * its history, steps and log lines, listings and counts, the dead jobs a
 * retryDead walks, pauses and group concurrency, backups and health. Every
 * job move goes through the engine's own path (engine.apply, the machine's
 * decision, a compare-and-set); this is the rest of what createQueue's
 * methods ask (docs/concepts/architecture.md).
 */
import { JobState } from '../../../machines/job.machine.js';
import { JobNotFoundError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { WHOLE_QUEUE } from '../../store/paused.js';
import type { BackupProgress, HistoryEntry, JobRecord, ListFilter, NameLimits, QueueStats, StepRecord, Store, StoreDiagnostics } from '../../store/store.js';
import type { WhereClause } from '../../store/where.js';
import { readJobLogs, type JobLogs, type LogsOptions } from './job-logs.js';
import { limitsView, type LimitsListing, type LimitsView } from './limits-view.js';
import type { LimitChanges } from '../core/live-limits.js';
import type { SharedTime } from '../core/shared-time.js';
import { checkInteger } from '../../lib/validate.js';

/** Dead jobs read (and retried) per page by retryDead. */
const DEAD_PAGE = 500;

export interface Inspection {
  /** The job, as it is now; JobNotFoundError (after the id is checked) when there is none. */
  job(id: number): Promise<JobRecord>;
  /** The job as it is now, or undefined when it is gone. */
  current(id: number): Promise<JobRecord | undefined>;
  history(id: number): Promise<HistoryEntry[]>;
  steps(id: number): Promise<StepRecord[]>;
  logs(id: number, options?: LogsOptions): Promise<JobLogs>;
  list(filter: ListFilter): Promise<JobRecord[]>;
  /** The counts, and whether the whole queue and which names are paused. */
  stats(): Promise<{ stats: QueueStats; paused: { all: boolean; names: string[] } }>;
  /**
   * The dead jobs of `name` (all names when undefined) matching `where`, page
   * by page, as they were when each page was read: a job that moved on since
   * (retried and dead again) is left out, so a retry never lands on a later
   * death. A search pages along the dead jobs' index, its cursor a position
   * that holds while retried jobs leave; without one, pages go by id.
   */
  deadPages(name: string | undefined, where: readonly WhereClause[]): AsyncGenerator<JobRecord[]>;
  setPaused(name: string, paused: boolean): Promise<void>;
  setGroupConcurrency(group: string, concurrency: number | null): Promise<void>;
  limits(limits: ReadonlyMap<string, NameLimits>, changed?: ReadonlyMap<string, LimitChanges>, listing?: LimitsListing): Promise<LimitsView>;
  backup(destination: string, onProgress?: (progress: BackupProgress) => void): Promise<void>;
  ping(): Promise<void>;
  diagnose(integrity: boolean): Promise<StoreDiagnostics>;
}

export function createInspection(store: Store, clock: Clock, time: Pick<SharedTime, 'now'>): Inspection {
  return {
    async job(id) {
      checkInteger('job id', id, 1);
      const job = await store.get(id);
      if (!job) throw new JobNotFoundError(id);
      return job;
    },
    current: (id) => store.get(id),
    history: (id) => store.history(id),
    steps: (id) => store.steps(id),
    logs: (id, options) => readJobLogs(store, id, options),
    list: (filter) => store.list(filter),
    async stats() {
      const [stats, paused] = await Promise.all([store.stats(), store.paused()]);
      const names = paused.filter((name) => name !== WHOLE_QUEUE);
      return { stats, paused: { all: names.length < paused.length, names } };
    },
    async *deadPages(name, where) {
      for (let cursor: string | undefined, after = 0; ; ) {
        if (where.length > 0) {
          const found = await store.browse({ state: JobState.dead, name, where, limit: DEAD_PAGE, cursor });
          // The full rows, as they were when the search read them.
          const rows = await Promise.all(found.jobs.map((j) => store.get(j.id)));
          yield rows.filter((job, i): job is JobRecord => job !== undefined && job.version === found.jobs[i]!.version);
          if (found.next === null) return;
          cursor = found.next;
        } else {
          const page = await store.list({ state: JobState.dead, ...(name === undefined ? {} : { name }), limit: DEAD_PAGE, after });
          yield page;
          if (page.length < DEAD_PAGE) return;
          after = page[page.length - 1]!.id;
        }
      }
    },
    setPaused: (name, paused) => store.setPaused(name, paused, clock.now()),
    setGroupConcurrency: (group, concurrency) => store.setGroupConcurrency(group, concurrency, clock.now()),
    // Tokens and pauses are on the database's clock (shared-time.ts).
    limits: async (limits, changed, listing) => limitsView(store, limits, (await time.now()).lo, changed, listing),
    backup: (destination, onProgress) => store.backup(destination, onProgress),
    ping: () => store.ping(),
    diagnose: (integrity) => store.diagnose({ integrity, now: clock.now() }),
  };
}
