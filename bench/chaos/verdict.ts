/**
 * The chaos check's verdict: a pure function of what a run left behind (the
 * acknowledged ids, the file's rows, the handlers' own logs and the
 * controller's record of each process's life, the operator's actions and the
 * watcher's feed), so that each check can be tested on hand-made inputs.
 *
 * The operator's actions change what a job may end as: a cancelled job may
 * end `cancelled`, a removed one may be gone, a job run again (or retried)
 * finishes once more and spends a fresh set of attempts, and a caller who
 * moved a failed job on (promote, cancel) skips its backoff. Nothing changes
 * the strictest check: no two runs of one job overlap.
 */
import { feedVerdict, type FeedVerdict } from './feed-verdict.js';
import type { FeedEntry } from './feed-log.js';

export interface JobRow {
  id: number;
  name: string;
  state: string;
  attempts: number;
}

export interface HistoryRow {
  id: number;
  job_id: number;
  from_state: string | null;
  to_state: string;
  event: string;
  at: number;
  worker_id: string | null;
  lease_token: string | null;
  error: string | null;
}

/** One handler run as its process logged it; `end` is null when the process died before the handler returned or threw. */
export interface HandlerRun {
  proc: string;
  pid: number;
  jobId: number;
  attempt: number;
  start: number;
  end: number | null;
  /** The handler threw (an always-failing job's run). */
  failed: boolean;
}

/** What a job name's retry policy promises: at most `attempts` claims, each retry at least `backoffMs` after the failure before it; the state it ends in. */
export interface JobPolicy {
  attempts: number;
  backoffMs: number;
  finalState: 'completed' | 'dead';
}

/** The controller's record of one child process. */
export interface ProcessLifetime {
  proc: string;
  role: 'worker' | 'producer' | 'operator' | 'watcher';
  pid: number;
  spawnedAt: number;
  /** When the crash loop SIGKILLed it (null: never). */
  killedAt: number | null;
  /** Whether it was asked to stop (SIGTERM) at the end of the run. */
  stopRequested: boolean;
  exitedAt: number | null;
  exitCode: number | null;
  signal: string | null;
}

export interface VerdictInput {
  acknowledged: readonly number[];
  jobs: readonly JobRow[];
  history: readonly HistoryRow[];
  runs: readonly HandlerRun[];
  processes: readonly ProcessLifetime[];
  /** `PRAGMA integrity_check`, its rows joined; null where the store has no such check (PostgreSQL). */
  integrity: string | null;
  leaseMs: number;
  /** By job name. */
  policies: Readonly<Record<string, JobPolicy>>;
  /** The operator's actions that took effect (operator.ts); none when it did not run. */
  operations?: ReadonlyArray<{ action: string; id: number; at: number }>;
  /** What the watchers were given (watcher.ts); no feed verdict when absent. */
  feed?: readonly FeedEntry[];
}

/** History events that give a job a fresh set of attempts, and a new ending: the operator's (a retry from dead is none of its: it stays a fault). */
const FRESH_START = new Set(['job.rerun', 'job.requeue']);

/** A retry claimed before its backoff had passed since the failure before it. */
export interface EarlyRetry {
  jobId: number;
  gapMs: number;
  backoffMs: number;
}

export interface Overlap {
  jobId: number;
  a: HandlerRun;
  b: HandlerRun;
}

export interface Verdict {
  pass: boolean;
  kills: number;
  producerKills: number;
  acknowledged: number;
  completed: number;
  /** Jobs that ended dead (the always-failing ones). */
  dead: number;
  /** Jobs that ended cancelled (by the operator). */
  cancelled: number;
  /** Acknowledged jobs the operator removed. */
  removed: number;
  /** Acknowledged, but missing, not in its final state, or without a move into it in its history. */
  lost: number[];
  /** In the file but never acknowledged (its producer died before recording it) and not finished. */
  stuck: number[];
  /** More than one history row into its final state. */
  doubled: number[];
  /** Claimed more times than its policy's attempts (a claim handed back before it started spent none). */
  overAttempts: number[];
  /** Retries claimed before their backoff. */
  earlyRetries: EarlyRetry[];
  /** Two runs of one job overlapping in time while both their processes were alive. */
  overlaps: Overlap[];
  /** Extra successful runs whose process was killed after the handler returned and before the commit could follow. */
  reruns: HandlerRun[];
  /** Extra successful runs not explained by a kill (a lease lost in a live process). Reported, not a failure. */
  liveReruns: HandlerRun[];
  /** Completed, yet no successful run was logged at the attempt that completed it. */
  unrun: number[];
  /** Processes that exited without being killed, or did not stop cleanly when asked. */
  crashes: ProcessLifetime[];
  integrityOk: boolean;
  /** False where the store has no integrity check to run (PostgreSQL). */
  integrityChecked: boolean;
  /** Runs a kill cut short (no end line): evidence that the kills hit work in flight. */
  cutShort: number;
  /** Leases the sweeper took back (`job.expire`): jobs held by killed processes. */
  expired: number;
  /** The operator's actions that took effect. */
  operations: number;
  /** The change feed as the watchers got it; null when no watcher ran. */
  feed: FeedVerdict | null;
}

/** When a run stopped: its logged end, or else the death of its process (the kill, or the exit). */
function runEnd(run: HandlerRun, life: ProcessLifetime | undefined): number {
  const death = life?.killedAt ?? life?.exitedAt ?? Number.POSITIVE_INFINITY;
  return Math.min(run.end ?? Number.POSITIVE_INFINITY, death);
}

function groupBy<T>(items: readonly T[], key: (t: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

function findOverlaps(runsByJob: Map<number, HandlerRun[]>, lives: Map<string, ProcessLifetime>): Overlap[] {
  const overlaps: Overlap[] = [];
  for (const [jobId, runs] of runsByJob) {
    const spans = runs.map((r) => ({ r, from: r.start, to: runEnd(r, lives.get(r.proc)) })).sort((x, y) => x.from - y.from);
    for (let i = 0; i < spans.length; i++) {
      for (let j = i + 1; j < spans.length && spans[j]!.from < spans[i]!.to; j++) {
        overlaps.push({ jobId, a: spans[i]!.r, b: spans[j]!.r });
      }
    }
  }
  return overlaps;
}

/** Claims beyond the policy's attempts, and retries claimed before their backoff, from each job's history. */
function attemptsAndBackoffs(input: VerdictInput, jobs: Map<number, JobRow>): { overAttempts: number[]; earlyRetries: EarlyRetry[] } {
  const overAttempts: number[] = [];
  const earlyRetries: EarlyRetry[] = [];
  for (const [jobId, rows] of groupBy(input.history, (h) => h.job_id)) {
    const policy = input.policies[jobs.get(jobId)?.name ?? ''];
    if (!policy) continue;
    let claims = 0;
    let failedAt: number | null = null;
    for (const h of [...rows].sort((a, b) => a.id - b.id)) {
      if (FRESH_START.has(h.event)) claims = 0;
      // A caller moved the job on from its backoff (promote, cancel): the backoff no longer stands.
      if (h.from_state === 'failed' && !h.event.startsWith('xstate.after')) failedAt = null;
      if (h.event === 'job.claim') {
        claims++;
        if (failedAt !== null && Number(h.at) - failedAt < policy.backoffMs) earlyRetries.push({ jobId, gapMs: Number(h.at) - failedAt, backoffMs: policy.backoffMs });
        failedAt = null;
      }
      // A claimed job handed back before it started (a buffer past its horizon, a stop) spent no attempt.
      if (h.event === 'job.release' && h.from_state === 'processing' && h.to_state === 'pending') claims--;
      if (h.to_state === 'failed') failedAt = Number(h.at);
    }
    if (claims > policy.attempts) overAttempts.push(jobId);
  }
  return { overAttempts: overAttempts.sort((a, b) => a - b), earlyRetries };
}

export function verdict(input: VerdictInput): Verdict {
  const lives = new Map(input.processes.map((p) => [p.proc, p]));
  const jobs = new Map(input.jobs.map((j) => [j.id, j]));
  const finalOf = (id: number) => input.policies[jobs.get(id)?.name ?? '']?.finalState ?? 'completed';
  const operations = input.operations ?? [];
  const removed = new Set(operations.filter((o) => o.action === 'remove').map((o) => o.id));
  const cancelled = new Set(operations.filter((o) => o.action === 'cancel').map((o) => o.id));
  // Where a job may end: its policy's final state, or cancelled once the operator cancelled it.
  const mayEnd = (id: number, state: string | undefined) => state === finalOf(id) || (state === 'cancelled' && cancelled.has(id));
  const endings = new Map<number, number>();
  const freshStarts = new Map<number, number>();
  const endedIn = new Set<string>();
  for (const h of input.history) {
    if (h.to_state === finalOf(h.job_id)) endings.set(h.job_id, (endings.get(h.job_id) ?? 0) + 1);
    if (FRESH_START.has(h.event)) freshStarts.set(h.job_id, (freshStarts.get(h.job_id) ?? 0) + 1);
    endedIn.add(`${h.job_id}:${h.to_state}`);
  }
  const acknowledged = new Set(input.acknowledged);

  const lost = [...acknowledged]
    .filter((id) => !(removed.has(id) && !jobs.has(id)))
    .filter((id) => !mayEnd(id, jobs.get(id)?.state) || !endedIn.has(`${id}:${jobs.get(id)!.state}`))
    .sort((a, b) => a - b);
  const stuck = input.jobs.filter((j) => !acknowledged.has(j.id) && !mayEnd(j.id, j.state)).map((j) => j.id);
  // Each fresh start (run again, retry, a requeue) may end the job once more.
  const doubled = [...endings].filter(([id, n]) => n > 1 + (freshStarts.get(id) ?? 0)).map(([id]) => id).sort((a, b) => a - b);
  const { overAttempts, earlyRetries } = attemptsAndBackoffs(input, jobs);

  const runsByJob = groupBy(input.runs, (r) => r.jobId);
  const overlaps = findOverlaps(runsByJob, lives);
  const feed = input.feed ? feedVerdict(input.feed, input.jobs, input.history) : null;
  const feedFaults = feed ? feed.lost.length + feed.doubled.length + feed.outOfOrder.length : 0;

  // Every completed job needs one successful run at the attempt that completed it;
  // any other successful run is a re-run, explained by a kill or not.
  const reruns: HandlerRun[] = [];
  const liveReruns: HandlerRun[] = [];
  const unrun: number[] = [];
  for (const job of input.jobs) {
    if (job.state !== 'completed') continue;
    const succeeded = (runsByJob.get(job.id) ?? []).filter((r) => r.end !== null && !r.failed);
    // The last successful run at the final attempt committed it (a job started afresh repeats attempt numbers).
    let committed = -1;
    succeeded.forEach((r, i) => {
      if (r.attempt === job.attempts) committed = i;
    });
    if (committed < 0) unrun.push(job.id);
    // A job run again, retried or requeued legitimately ran (and may have succeeded) more than once.
    if (freshStarts.has(job.id)) continue;
    succeeded.forEach((r, i) => {
      if (i === committed) return;
      const killedAt = lives.get(r.proc)?.killedAt ?? null;
      // Killed within one lease of returning: the completion had no time to commit.
      const byKill = killedAt !== null && killedAt >= r.end! && killedAt - r.end! <= input.leaseMs;
      (byKill ? reruns : liveReruns).push(r);
    });
  }

  const crashes = input.processes.filter((p) => p.killedAt === null && !(p.stopRequested && p.exitCode === 0));
  const integrityChecked = input.integrity !== null;
  const integrityOk = !integrityChecked || input.integrity === 'ok';
  const completed = input.jobs.filter((j) => j.state === 'completed').length;
  return {
    pass: lost.length + stuck.length + doubled.length + overAttempts.length + earlyRetries.length + overlaps.length + unrun.length + crashes.length + feedFaults === 0 && integrityOk,
    kills: input.processes.filter((p) => p.role === 'worker' && p.killedAt !== null).length,
    producerKills: input.processes.filter((p) => p.role === 'producer' && p.killedAt !== null).length,
    acknowledged: acknowledged.size,
    completed,
    dead: input.jobs.filter((j) => j.state === 'dead').length,
    cancelled: input.jobs.filter((j) => j.state === 'cancelled').length,
    removed: [...acknowledged].filter((id) => removed.has(id) && !jobs.has(id)).length,
    lost,
    stuck,
    doubled,
    overAttempts,
    earlyRetries,
    overlaps,
    reruns,
    liveReruns,
    unrun,
    crashes,
    integrityOk,
    integrityChecked,
    cutShort: input.runs.filter((r) => r.end === null).length,
    expired: input.history.filter((h) => h.event === 'job.expire').length,
    operations: operations.length,
    feed,
  };
}
