/**
 * The two plain-text records the child processes leave behind, written by
 * them and read back by the verdict: handler runs (one start line and one end
 * line per run) and acknowledged job ids (one per line).
 *
 * A run's start line comes with an end line (E: returned, X: threw) unless
 * its process died first.
 *
 * Each line is written with one `fs.writeSync` call, so a SIGKILL leaves
 * either the whole line or none of it; the readers still ignore a last line
 * without its newline rather than guess at it.
 */
import type { HandlerRun } from './verdict.js';

/** `S <job> <attempt> <pid> <start ms>`: the handler has started. */
export function startLine(jobId: number, attempt: number, pid: number, start: number): string {
  return `S ${jobId} ${attempt} ${pid} ${start}\n`;
}

/** `E <job> <attempt> <pid> <start ms> <end ms>`: the handler is about to return successfully. */
export function endLine(jobId: number, attempt: number, pid: number, start: number, end: number): string {
  return `E ${jobId} ${attempt} ${pid} ${start} ${end}\n`;
}

/** `X <job> <attempt> <pid> <start ms> <end ms>`: the handler is about to throw (a failing job's run). */
export function failLine(jobId: number, attempt: number, pid: number, start: number, end: number): string {
  return `X ${jobId} ${attempt} ${pid} ${start} ${end}\n`;
}

/** Complete lines only: a last line cut short has no newline yet. */
function wholeLines(text: string): string[] {
  const lines = text.split('\n');
  lines.pop(); // '' after the last newline, or a line cut short
  return lines.filter((l) => l.length > 0);
}

/** Pairs each start line with its end line; a run with no end line was cut short (its process died). */
export function parseRunLog(text: string, proc: string): HandlerRun[] {
  const runs = new Map<string, HandlerRun>();
  for (const line of wholeLines(text)) {
    const [kind, ...rest] = line.split(' ');
    const nums = rest.map(Number);
    if ((kind !== 'S' && kind !== 'E' && kind !== 'X') || nums.some((n) => !Number.isFinite(n)) || nums.length !== (kind === 'S' ? 4 : 5)) {
      throw new Error(`${proc}: unreadable run-log line ${JSON.stringify(line)}`);
    }
    const [jobId, attempt, pid, start, end] = nums as [number, number, number, number, number | undefined];
    const key = `${jobId}/${attempt}/${start}`;
    const run = runs.get(key) ?? { proc, pid, jobId, attempt, start, end: null, failed: false };
    if (kind !== 'S') run.end = end!;
    if (kind === 'X') run.failed = true;
    runs.set(key, run);
  }
  return [...runs.values()];
}

/** Acknowledged ids, one per line. */
export function parseAcked(text: string, file: string): number[] {
  return wholeLines(text).map((line) => {
    const id = Number(line);
    if (!Number.isInteger(id) || id <= 0) throw new Error(`${file}: unreadable acknowledged id ${JSON.stringify(line)}`);
    return id;
  });
}
