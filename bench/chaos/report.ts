/**
 * Turns a verdict into the one line of figures (stdout) and, on failure, a
 * bounded list of the offending ids and their histories (stderr), enough to
 * start an investigation without flooding a terminal or a CI log.
 */
import type { HandlerRun, HistoryRow, Verdict } from './verdict.js';

const MAX_IDS = 20;
const MAX_HISTORIES = 5;

export interface LineExtras {
  seed: number;
  elapsedMs: number;
  /** A reason the run failed outside the verdict's own checks (a stuck drain, the hard timeout). */
  abort?: string;
}

export function figuresLine(v: Verdict, x: LineExtras): string {
  const pass = v.pass && x.abort === undefined;
  return (
    `chaos: seed=${x.seed} kills=${v.kills} producerKills=${v.producerKills} acknowledged=${v.acknowledged} ` +
    `completed=${v.completed} dead=${v.dead} cancelled=${v.cancelled} removed=${v.removed} lost=${v.lost.length} stuck=${v.stuck.length} doubled=${v.doubled.length} ` +
    `overAttempts=${v.overAttempts.length} earlyRetries=${v.earlyRetries.length} ` +
    `overlaps=${v.overlaps.length} reruns=${v.reruns.length} liveReruns=${v.liveReruns.length} unrun=${v.unrun.length} ` +
    `crashes=${v.crashes.length} cutShort=${v.cutShort} expired=${v.expired} operations=${v.operations} ` +
    (v.feed ? `changes=${v.feed.changes} lostChanges=${v.feed.lost.length} doubledChanges=${v.feed.doubled.length} outOfOrderChanges=${v.feed.outOfOrder.length} ` : '') +
    `integrity=${v.integrityChecked ? (v.integrityOk ? 'ok' : 'FAILED') : 'n/a'} elapsed=${Math.round(x.elapsedMs / 1000)}s ` +
    `verdict=${pass ? 'PASS' : 'FAIL'}`
  );
}

function ids(list: readonly number[]): string {
  const shown = list.slice(0, MAX_IDS).join(', ');
  return list.length > MAX_IDS ? `${shown} … (${list.length} in all)` : shown;
}

function run(r: HandlerRun): string {
  return `${r.proc} (pid ${r.pid}) attempt ${r.attempt} ${r.start}→${r.end ?? 'cut short'}${r.failed ? ' (threw)' : ''}`;
}

function historyOf(jobId: number, history: readonly HistoryRow[]): string[] {
  return history
    .filter((h) => h.job_id === jobId)
    .map((h) => `    #${h.id} ${h.at} ${h.from_state}→${h.to_state} ${h.event} by ${h.worker_id ?? '-'} lease ${h.lease_token ?? '-'}${h.error ? ` ${h.error.slice(0, 120)}` : ''}`);
}

/** The details behind a failing (or noteworthy) verdict, as lines for stderr. */
export function failureDetails(v: Verdict, history: readonly HistoryRow[], integrity: string | null, stderrOf: (proc: string) => string): string[] {
  const out: string[] = [];
  if (v.lost.length) out.push(`lost (acknowledged, not finished as its policy says): ${ids(v.lost)}`);
  if (v.stuck.length) out.push(`stuck (in the file, never acknowledged, not finished): ${ids(v.stuck)}`);
  if (v.doubled.length) out.push(`finished twice: ${ids(v.doubled)}`);
  if (v.overAttempts.length) out.push(`claimed more often than its attempts: ${ids(v.overAttempts)}`);
  for (const e of v.earlyRetries.slice(0, MAX_IDS)) out.push(`retry of job ${e.jobId} claimed ${e.gapMs} ms after its failure (backoff ${e.backoffMs} ms)`);
  if (v.unrun.length) out.push(`completed with no successful run logged at its final attempt: ${ids(v.unrun)}`);
  for (const o of v.overlaps.slice(0, MAX_IDS)) out.push(`overlap on job ${o.jobId}: ${run(o.a)} and ${run(o.b)}`);
  if (v.feed?.lost.length) out.push(`changes the feed never gave: ${v.feed.lost.slice(0, MAX_IDS).join(', ')}${v.feed.lost.length > MAX_IDS ? ` … (${v.feed.lost.length} in all)` : ''}`);
  if (v.feed?.doubled.length) out.push(`changes the feed gave twice: ${v.feed.doubled.slice(0, MAX_IDS).join(', ')}`);
  if (v.feed?.outOfOrder.length) out.push(`changes given after a later change of their job: ${v.feed.outOfOrder.slice(0, MAX_IDS).join(', ')}`);
  if (v.overlaps.length > MAX_IDS) out.push(`… ${v.overlaps.length} overlaps in all`);
  for (const r of v.liveReruns.slice(0, MAX_IDS)) out.push(`re-run not explained by a kill (a lease lost in a live process): job ${r.jobId}, ${run(r)}`);
  for (const p of v.crashes.slice(0, MAX_IDS)) {
    const how = p.stopRequested ? 'did not stop cleanly when asked' : 'exited on its own';
    out.push(`process ${p.proc} (pid ${p.pid}, ${p.role}) ${how}: code ${p.exitCode} signal ${p.signal}`);
    const err = stderrOf(p.proc).trim();
    if (err) out.push(...err.split('\n').slice(-10).map((l) => `    ${l}`));
  }
  if (!v.integrityOk) out.push(`integrity_check: ${(integrity ?? '').slice(0, 2000)}`);
  const offending = [...new Set([...v.lost, ...v.stuck, ...v.doubled, ...v.overAttempts, ...v.earlyRetries.map((e) => e.jobId), ...v.unrun, ...v.overlaps.map((o) => o.jobId), ...v.liveReruns.map((r) => r.jobId)])];
  for (const id of offending.slice(0, MAX_HISTORIES)) out.push(`  history of job ${id}:`, ...historyOf(id, history));
  return out;
}
