/**
 * `litejobs job <id> --follow`: the job as `litejobs job <id>` prints it,
 * then each of its changes as it comes — moves and `ctx.progress()` updates,
 * made by any process sharing the store (queue.watch()) — until it finishes.
 * The watch starts before the job is read, so nothing between the read and
 * the first change is missed; a move the printed timeline already shows is
 * not printed again. With --json, one JSON object a line.
 */
import { FINISHED_STATES, JobState } from '../../../machines/job.machine.js';
import type { JobChange } from '../../engine/actions/watch.js';
import type { Job, Transition } from '../../engine/core/job-view.js';
import type { Queue } from '../../queue.js';
import { CliFailure } from '../exit-codes.js';
import { formatTime, printable } from '../format.js';
import type { CliIO } from '../io.js';

export interface Followed {
  job: Job;
  history: Transition[];
}

/** A move as the timeline keys it: the same move read from the history and from the feed. */
const moveKey = (m: { from: string | null; to: string; event: string; at: Date }) => `${m.from}>${m.to}:${m.event}:${m.at.getTime()}`;

/** One line of a followed change: its time, the move (or the progress value), the event. */
export function renderChange(c: JobChange): string {
  if (c.progress !== undefined) return `${formatTime(c.at)}  progress ${printable(JSON.stringify(c.progress))}\n`;
  return `${formatTime(c.at)}  ${c.from ?? '(new)'} → ${c.to}  ${printable(c.event)}\n`;
}

/**
 * Prints the job (`print`), then its changes until it is in a finished state.
 * Resolves with the job as it finished; a job that ends other than completed
 * fails the command (exit code 1), so a script can wait on it.
 */
export async function followJob(queue: Queue, id: number, io: CliIO, o: { json: boolean; print(read: Followed): void }): Promise<void> {
  const changes: JobChange[] = [];
  let wake: (() => void) | undefined;
  let failed: unknown;
  const subscription = queue.watch().subscribe({
    next: (c) => {
      if (c.id !== id) return;
      changes.push(c);
      wake?.();
    },
    error: (err: unknown) => {
      failed = err;
      wake?.();
    },
  });
  try {
    // A producer queue reads "now" on its first store call: after this one, every later change is watched.
    await queue.ping();
    const read: Followed = { job: await queue.getJob(id), history: await queue.history(id) };
    o.print(read);
    const shown = new Set(read.history.map(moveKey));
    let state = read.job.state;
    while (!FINISHED_STATES.includes(state)) {
      if (changes.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      if (failed !== undefined) throw failed;
      for (const c of changes.splice(0)) {
        if (c.progress === undefined && shown.has(moveKey(c))) continue;
        io.stdout.write(o.json ? `${JSON.stringify(c)}\n` : renderChange(c));
        if (c.progress === undefined) state = c.to;
      }
    }
    const end = await queue.getJob(id).catch(() => undefined);
    if (end && !o.json && end.result !== undefined) io.stdout.write(`result ${printable(JSON.stringify(end.result))}\n`);
    if (state !== JobState.completed) {
      const why = end?.lastError ? `: ${end.lastError.name}: ${end.lastError.message}` : '';
      throw new CliFailure(`job ${id} ended ${state}${why}`);
    }
  } finally {
    subscription.unsubscribe();
  }
}
