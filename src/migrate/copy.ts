/**
 * The copy: jobs in id order, a batch at a time, each batch with its jobs'
 * history in one target transaction that also moves the progress mark. A run
 * continues after the last batch committed, so a run cut short at any point
 * is finished by running again, and a run after a finished one copies the
 * jobs added since. At the end the pass is verified (verify.ts).
 */
import { JobState } from '../../machines/job.machine.js';
import { MigrateError } from '../errors.js';
import type { Source } from './source.js';
import type { Target } from './target.js';
import { verifyPass, type StateCounts } from './verify.js';

export interface CopyOptions {
  /** Jobs per batch (one target transaction each). */
  batch: number;
  /** Ids kept free above the file's highest on the first run, for the jobs its producers still add. */
  reserve: number;
  /** Copy jobs under a live lease as they are instead of refusing. */
  allowRunning: boolean;
  now: () => number;
  /** After each batch: jobs done so far, and how many there were to copy when the run began. */
  onProgress?: (done: number, total: number) => void;
  /** Stops after the batch under way commits. */
  signal?: AbortSignal;
}

export interface CopySummary {
  source: string;
  target: string;
  /** Jobs written by this run, and their history rows. */
  copied: number;
  history: number;
  /** Jobs not written: found in the target already (`present`), or their key held there by another job (`skipped`). */
  present: number;
  skipped: Array<{ id: number; key: string; heldBy: number }>;
  /** The pass covers source ids (from, upTo]; `resumed`: it went on from an interrupted run. */
  pass: { from: number; upTo: number; resumed: boolean; firstRun: boolean };
  /** Source and target counts per state over the pass; absent when interrupted. */
  states?: StateCounts;
  verified: boolean;
  interrupted: boolean;
}

export async function copyJobs(source: Source, target: Target, o: CopyOptions): Promise<CopySummary> {
  // Leases on jobs copied by an earlier run do not matter; the target is asked only when the file has any.
  if (!o.allowRunning && source.liveLeases(0, o.now()).count > 0) refuseLiveLeases(source.liveLeases(await target.copiedUpTo(), o.now()));
  const pass = await target.beginPass({ reserve: o.reserve, maxIds: source.maxIds(), paused: source.paused(), limits: source.limits(), nameRules: source.nameRules(), schedules: source.schedules() });
  const total = source.countAfter(pass.upTo);
  const out: CopySummary = {
    source: source.identity,
    target: target.where,
    copied: 0,
    history: 0,
    present: 0,
    skipped: [],
    pass: { from: pass.passFrom, upTo: pass.upTo, resumed: pass.resumed, firstRun: pass.firstRun },
    verified: false,
    interrupted: false,
  };
  let after = pass.upTo;
  let done = 0;
  for (;;) {
    if (o.signal?.aborted) {
      out.interrupted = true;
      return out;
    }
    const batch = source.batch(after, o.batch);
    if (batch.jobs.length === 0) break;
    if (!o.allowRunning) refuseLiveLeases(leasedIn(batch.jobs, o.now()));
    const r = await target.copyBatch(after, batch);
    after = batch.jobs.at(-1)!.id;
    out.pass.upTo = after;
    out.copied += r.copied;
    out.history += r.history;
    out.present += r.present;
    out.skipped.push(...r.skipped);
    done += batch.jobs.length;
    o.onProgress?.(done, total);
  }
  out.states = await verifyPass(source, target, out.pass);
  out.verified = Object.values(out.states).every((c) => c.source === c.target);
  await target.endPass();
  return out;
}

function leasedIn(jobs: ReadonlyArray<{ id: number; state: string; locked_until: number | null }>, now: number): { count: number; ids: number[] } {
  const ids = jobs.filter((j) => j.state === JobState.processing && j.locked_until !== null && j.locked_until >= now).map((j) => j.id);
  return { count: ids.length, ids: ids.slice(0, 10) };
}

function refuseLiveLeases(live: { count: number; ids: number[] }): void {
  if (live.count === 0) return;
  const more = live.count > live.ids.length ? ', …' : '';
  throw new MigrateError(
    'LJ_ERR_MIGRATE_RUNNING',
    `${live.count} ${live.count === 1 ? 'job is' : 'jobs are'} running under a live lease in the SQLite file (ids ${live.ids.join(', ')}${more}): its workers are still running. Stop the SQLite workers first (let them finish their jobs), then migrate; or pass --allow-running to copy them as they are (PostgreSQL workers retry them once their leases run out)`,
  );
}
