/**
 * The model check's judgement of the database as it stands
 * (test/property/engine.model.test.ts): each job's history replays through
 * its machine to exactly its row; its version counts its moves; no job
 * spends more runs than its policy's attempts between resets; no retry is
 * claimed before its backoff, on the claimer's clock against the failer's
 * (a claim compares the run time the failer wrote with its own clock); every
 * run started under a claim the history records; no job is held under two
 * leases at once; at the end, every job has finished and holds no lease.
 */
import { JobEventType, RUNTIME_EVENTS } from '../../machines/job.machine.js';
import type { MachineRegistry } from '../../src/engine/core/machine-registry.js';
import { fromContext } from '../../src/engine/core/machine-registry.js';
import { leaseViolations, type HistoryRow } from './lease-history.js';

/** A job's row; or, `kept`, the outcome a job deleted as it finished left (state and last error only). */
export type JobRow =
  | { id: number; name: string; state: string; attempts: number; last_error: string | null; ctx: string | null; version: number | string; parent_id: number | null; kept?: undefined }
  | { id: number; name: string; state: string; last_error: string | null; kept: true };
export type History = HistoryRow & { at: number | string; candidate: number | null; error: string | null };

export interface HistoryFacts {
  jobs: readonly JobRow[];
  history: readonly History[];
  registry: MachineRegistry;
  /** The lease tokens each job's runs started under. */
  claimedTokens: ReadonlyMap<number, ReadonlySet<string>>;
  final: boolean;
  /** A custom machine's caller events out of processing. */
  customExits: readonly string[];
  attempts: number;
  backoff: number;
  later: number;
  sleep: number;
  /** ctx.waitFor's topic and timeout in the model's handlers; the largest skew between two clocks. */
  wait: { topic: string; timeout: number; skew: number };
  /** Jobs sent a message (queue.signal accepted it): the only ones `job.message` may wake. */
  signalled: ReadonlySet<number>;
}

export function historyViolations(f: HistoryFacts): string[] {
  // A lease still held is no fault until the end (a claim under way, or a process that died holding it).
  const out = leaseViolations(f.history, f.customExits).filter((v) => f.final || !v.endsWith('never released'));
  const byJob = new Map<number, History[]>();
  // Moves only: a progress update or a published value (judged with the leases) is a change of the feed, not a move.
  for (const r of f.history) if (r.event !== 'job.progress' && r.event !== 'job.publish') byJob.set(r.job_id, [...(byJob.get(r.job_id) ?? []), r]);
  for (const job of f.jobs) {
    const history = byJob.get(job.id) ?? [];
    const where = `job ${job.id}`;
    // The table holds moves only (a job's creation is its row): one per version.
    if (!job.kept && Number(job.version) !== history.length) out.push(`${where}: version ${job.version} after ${history.length} moves`);
    const machine = f.registry.forJob(job.name, null);
    let state = history[0]?.from_state ?? job.state;
    let context = machine.initial.context;
    let spent = 0;
    let failedAt: { at: number; wait: number } | null = null;
    /** When the job first parked for its wait since its steps were last deleted (created, or run again): its deadline counts from there. */
    let waitFrom: number | null = null;
    for (const h of history) {
      const error = h.error === null ? undefined : (JSON.parse(h.error) as { retryAfter?: number });
      const event: { type: string } & Record<string, unknown> = { type: h.event, random: 0 };
      if (error) event.error = error;
      if (h.event === JobEventType.sleep) event.delay = f.sleep;
      if (h.event === JobEventType.wait) Object.assign(event, { topic: f.wait.topic, delay: f.wait.timeout });
      if (h.event === JobEventType.children) event.failed = h.to_state !== 'pending';
      const step = machine.next(state, context, event);
      if (!step || step.state !== h.to_state || (step.candidate ?? null) !== (h.candidate ?? null)) {
        out.push(`${where}: history ${h.from_state}→${h.to_state} by ${h.event} does not follow from ${state}`);
        break;
      }
      if (h.from_state !== state) out.push(`${where}: history row #${h.id} leaves ${h.from_state}, the job was ${state}`);
      // A waiting job wakes by a message sent to it, or at its deadline (on the clocks' spread): nothing else.
      if (h.event === JobEventType.wait) waitFrom ??= Number(h.at);
      if (h.event === JobEventType.rerun) waitFrom = null;
      if (h.event === JobEventType.message && !f.signalled.has(job.id)) out.push(`${where}: woken by a message, but none was sent to it`);
      if (h.event.startsWith('xstate.after.waitDelay') && waitFrom !== null && Number(h.at) < waitFrom + f.wait.timeout - f.wait.skew) {
        out.push(`${where}: its wait timed out at +${Number(h.at) - waitFrom} ms, the timeout is ${f.wait.timeout} ms`);
      }
      if (h.event === JobEventType.claim) {
        spent++;
        if (failedAt && Number(h.at) < failedAt.at + failedAt.wait) out.push(`${where}: claimed at +${Number(h.at) - failedAt.at} ms after its failure, backoff ${failedAt.wait} ms`);
        failedAt = null;
      }
      // A caller's move after the failure (promote, update, cancel, then run again …) sets the job's time
      // itself, on its own clock: the backoff no longer stands (the due promotion is the machine's, it keeps it).
      if (!RUNTIME_EVENTS.includes(h.event) && !h.event.startsWith('xstate.after')) failedAt = null;
      // An attempt given back (released, parked asleep, retried later), or a fresh set of attempts (retry, run again, a custom reset).
      if (context.attempts > step.context.attempts) spent = h.from_state === 'processing' && step.context.attempts === context.attempts - 1 ? spent - 1 : step.context.attempts;
      if (spent > f.attempts) out.push(`${where}: ${spent} attempts spent, the policy allows ${f.attempts}`);
      if (h.to_state === 'failed') failedAt = { at: Number(h.at), wait: error?.retryAfter !== undefined && h.candidate === null ? f.later : f.backoff };
      state = step.state;
      context = step.context;
    }
    const replayed = fromContext(context);
    // A park's delay is what was left of it, on the parker's clock: not in the history.
    const { sleepDelay: _a, waitDelay: _c, ...replayedCtx } = replayed.ctx ?? {};
    const { sleepDelay: _b, waitDelay: _d, ...rowCtx } = !job.kept && job.ctx ? (JSON.parse(job.ctx) as Record<string, unknown>) : {};
    const lastError = job.last_error === null ? null : (JSON.parse(job.last_error) as unknown);
    const actual = job.kept ? { state: job.state, lastError } : { state: job.state, attempts: job.attempts, lastError, ctx: rowCtx };
    const expected = job.kept ? { state, lastError: replayed.lastError } : { state, attempts: replayed.attempts, lastError: replayed.lastError, ctx: replayedCtx };
    if (JSON.stringify(actual) !== JSON.stringify(expected)) out.push(`${where}: row ${JSON.stringify(actual)}, history replays to ${JSON.stringify(expected)}`);
    const claims = new Set(history.filter((h) => h.event === JobEventType.claim).map((h) => h.lease_token));
    for (const token of f.claimedTokens.get(job.id) ?? []) if (!claims.has(token)) out.push(`${where}: a run under ${token}, which no claim recorded`);
    if (f.final && !['completed', 'dead', 'cancelled'].includes(job.state)) out.push(`${where}: still ${job.state} at the end`);
  }
  return out;
}
