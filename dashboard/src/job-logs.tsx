/**
 * The lines a job's handler logged (ctx.log) in its timeline: read with the
 * job, and again whenever it is, then placed as its durable steps are (under
 * the claim of the attempt that logged them, timeline-steps.ts) and ordered
 * by time among those steps.
 */
import type { JSX } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, errorText } from './api';
import { toMs } from './format';
import { stepsByTransition } from './timeline-steps';
import type { HistoryRow, LogLineRow, StepRow } from './types';
import { When } from './when';

/** Pages read at most: a job keeps 1,000 lines, which is one page. */
const MAX_PAGES = 5;
/** How often a running job's lines are read again. */
const LIVE_MS = 5000;

export interface PlacedLogs {
  /** Lines before every transition (a history kept only in part). */
  before: LogLineRow[];
  /** Lines under each transition, by its index. */
  after: LogLineRow[][];
  dropped: number;
  error?: string;
}

async function readAll(id: number): Promise<{ lines: LogLineRow[]; dropped: number }> {
  const first = await api.logs(id);
  const lines = [...first.lines];
  for (let next = first.next, pages = 1; next !== null && pages < MAX_PAGES; pages++) {
    const page = await api.logs(id, next);
    lines.push(...page.lines);
    next = page.next;
  }
  return { lines, dropped: first.dropped };
}

/**
 * The job's lines, read again whenever one of `refresh` changes, placed under
 * `history`. While the job runs they are also read every LIVE_MS (while the
 * tab is visible): a running handler's lines are stored at its lease
 * renewals, which no transition announces.
 */
export function useJobLogs(id: number, history: readonly HistoryRow[], refresh: readonly unknown[], running: boolean): PlacedLogs {
  const [read, setRead] = useState<{ lines: LogLineRow[]; dropped: number; error?: string }>({ lines: [], dropped: 0 });
  useEffect(() => {
    let live = true;
    const load = () =>
      readAll(id).then(
        (r) => live && setRead(r),
        (e) => live && setRead((r) => ({ ...r, error: errorText(e) })),
      );
    void load();
    const timer = running ? setInterval(() => document.hidden || void load(), LIVE_MS) : undefined;
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [id, running, ...refresh]);
  return useMemo(() => ({ ...stepsByTransition(history, read.lines), dropped: read.dropped, ...(read.error ? { error: read.error } : {}) }), [history, read]);
}

/** Why some lines are missing: the cap dropped the oldest, or they could not be read. */
export function LogNote({ logs }: { logs: PlacedLogs }) {
  if (logs.error) return <p class="inline-error small-text">Log lines could not be read: {logs.error}</p>;
  if (logs.dropped === 0) return null;
  return (
    <p class="muted small-text" data-testid="log-dropped">
      {logs.dropped} earlier log {logs.dropped === 1 ? 'line' : 'lines'} dropped (a job keeps its newest).
    </p>
  );
}

/**
 * The steps and log lines under one transition, by time. A line logged in the
 * millisecond a step completed goes first: a step's time is when it ended, so
 * what the handler logged meanwhile (inside the step, or just before it) came
 * before it.
 */
export function TimelineExtras({ steps, lines, Step }: { steps: readonly StepRow[]; lines: readonly LogLineRow[]; Step: (p: { step: StepRow }) => JSX.Element }) {
  if (lines.length === 0) return <>{steps.map((s) => <Step key={`s${s.seq}`} step={s} />)}</>;
  const entries = [...lines.map((line) => ({ at: toMs(line.at) ?? 0, line })), ...steps.map((step) => ({ at: toMs(step.at) ?? 0, step }))];
  // Stable: lines, listed first, stay ahead of a step of the same millisecond.
  entries.sort((a, b) => a.at - b.at);
  return <>{entries.map((e) => ('step' in e ? <Step key={`s${e.step.seq}`} step={e.step} /> : <LogItem key={`l${e.line.seq}`} line={e.line} />))}</>;
}

function LogItem({ line }: { line: LogLineRow }) {
  return (
    <li class={`log log-${line.level}`} data-testid="timeline-log">
      <div>
        <span class="log-level">{line.level}</span> <span class="log-message">{line.message}</span>
        {line.fields && <code class="log-fields">{JSON.stringify(line.fields)}</code>}
      </div>
      <div class="muted small-text">
        <When at={line.at} /> · attempt {line.attempt}
      </div>
    </li>
  );
}
