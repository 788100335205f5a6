/** `litejobs job <id> --logs`: the lines a job's handler logged with `ctx.log`, every page of them. */
import type { LogLine } from '../../engine/actions/job-logs.js';
import type { Queue } from '../../queue.js';
import { formatTime, table } from '../format.js';

/** All of a job's stored lines, oldest first, and how many earlier ones were dropped. */
export async function readAllLogs(queue: Queue, id: number): Promise<{ dropped: number; lines: LogLine[] }> {
  const first = await queue.logs(id);
  const lines = [...first.lines];
  // A job keeps at most a page of lines, but lines appended between two reads can spill over.
  for (let next = first.next; next !== null; ) {
    const page = await queue.logs(id, { after: next });
    lines.push(...page.lines);
    next = page.next;
  }
  return { dropped: first.dropped, lines };
}

export function renderLogs(id: number, logs: { dropped: number; lines: readonly LogLine[] }): string {
  const count = `${logs.lines.length} log line${logs.lines.length === 1 ? '' : 's'}`;
  const dropped = logs.dropped > 0 ? ` (${logs.dropped} earlier line${logs.dropped === 1 ? '' : 's'} dropped: a job keeps its newest)` : '';
  const head = `job ${id}: ${count}${dropped}\n`;
  if (logs.lines.length === 0) return head;
  const rows = logs.lines.map((l) => [
    formatTime(l.at),
    String(l.attempt),
    l.level.toUpperCase(),
    l.fields === undefined ? l.message : `${l.message}  ${JSON.stringify(l.fields)}`,
  ]);
  return `${head}${table(['AT', 'ATTEMPT', 'LEVEL', 'MESSAGE'], rows)}`;
}
