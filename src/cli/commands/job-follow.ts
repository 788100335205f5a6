/**
 * `litejobs job <id> --follow`: the job as `litejobs job <id>` prints it,
 * then each of its changes as it comes — moves, `ctx.progress()` updates and `ctx.publish()` values,
 * made by any process sharing the store (queue.watch()) — until it finishes.
 * The watch starts before the job is read, so nothing between the read and
 * the first change is missed; a move the printed timeline already shows is
 * not printed again. With --json, one JSON object a line.
 *
 * The job is also read again each second: a finish the feed cannot show (a
 * worker with `history: false`) or a job deleted meanwhile (removed, or by
 * retention as it finished: its kept outcome says how it ended) ends the
 * command too. Ctrl-C ends it at once, the queue closed.
 */
import { FINISHED_STATES, JobState } from '../../../machines/job.machine.js';
import type { JobChange } from '../../engine/actions/watch.js';
import type { Job, Transition } from '../../engine/core/job-view.js';
import { JobFailedError, JobNotFoundError, WaitTimeoutError } from '../../errors.js';
import type { Queue } from '../../queue.js';
import { CliFailure } from '../exit-codes.js';
import { formatTime, printable } from '../format.js';
import type { CliIO } from '../io.js';

/** How often the job is read again besides the feed. */
const CHECK_MS = 1000;

export interface Followed {
  job: Job;
  history: Transition[];
}

/** How a followed job ended: its state, and its result or last error as it stands. */
interface End {
  state: string;
  result?: unknown;
  error?: { name: string; message: string } | null;
}

/** A move as the timeline keys it: the same move read from the history and from the feed. */
const moveKey = (m: { from: string | null; to: string; event: string; at: Date }) => `${m.from}>${m.to}:${m.event}:${m.at.getTime()}`;

/** One line of a followed change: its time, the move (or the progress value), the event. */
export function renderChange(c: JobChange): string {
  if (c.progress !== undefined) return `${formatTime(c.at)}  progress ${printable(JSON.stringify(c.progress))}\n`;
  if (c.published !== undefined) return `${formatTime(c.at)}  published ${printable(c.published.key)} ${printable(JSON.stringify(c.published.value))}\n`;
  return `${formatTime(c.at)}  ${c.from ?? '(new)'} → ${c.to}  ${printable(c.event)}\n`;
}

/** The job as it ended, read again; from its kept outcome when it is gone (retention 0). */
async function endOf(queue: Queue, id: number): Promise<End | 'running'> {
  try {
    const job = await queue.getJob(id);
    if (!FINISHED_STATES.includes(job.state)) return 'running';
    return { state: job.state, result: job.result, error: job.lastError ?? null };
  } catch (err) {
    if (!(err instanceof JobNotFoundError)) throw err;
  }
  try {
    // Gone: a kept outcome answers at once; the wait's bound only guards a store that cannot say.
    return { state: JobState.completed, result: await queue.result(id, { timeout: 5000 }) };
  } catch (err) {
    if (err instanceof JobFailedError) return { state: err.state, error: err.lastError };
    if (err instanceof JobNotFoundError || err instanceof WaitTimeoutError) throw new CliFailure(`job ${id} was removed while followed`);
    throw err;
  }
}

/**
 * Prints the job (`print`), then its changes until it is in a finished
 * state. A job that ends other than completed fails the command (exit code
 * 1), so a script can wait on it.
 */
export async function followJob(queue: Queue, id: number, io: CliIO, o: { json: boolean; print(read: Followed): void }): Promise<void> {
  const changes: JobChange[] = [];
  let wake: (() => void) | undefined;
  let failed: unknown;
  let interrupted = false;
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
  const unlisten = io.onInterrupt(() => {
    interrupted = true;
    wake?.();
  });
  try {
    // A producer queue reads "now" on its first store call: after this one, every later change is watched.
    await queue.ping();
    const read: Followed = { job: await queue.getJob(id), history: await queue.history(id) };
    o.print(read);
    const shown = new Set(read.history.map(moveKey));
    // The later of the two reads: a move between them is in the timeline, and the feed's copy of it is skipped.
    let state = read.history.at(-1)?.to ?? read.job.state;
    if (FINISHED_STATES.includes(read.job.state)) state = read.job.state;
    let end: End | undefined = FINISHED_STATES.includes(state) ? { state, result: read.job.result, error: read.job.lastError ?? null } : undefined;
    let checkedAt = Date.now();
    while (!end && !interrupted) {
      if (changes.length === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, CHECK_MS);
        });
      }
      wake = undefined;
      if (failed !== undefined) throw failed;
      for (const c of changes.splice(0)) {
        // A progress update or a published value is no move.
        const move = c.progress === undefined && c.published === undefined;
        if (move) state = c.to;
        if (move && shown.has(moveKey(c))) continue;
        io.stdout.write(o.json ? `${JSON.stringify(c)}\n` : renderChange(c));
      }
      if (FINISHED_STATES.includes(state)) {
        const now = await endOf(queue, id);
        end = now === 'running' ? { state } : now;
      } else if (Date.now() - checkedAt >= CHECK_MS) {
        checkedAt = Date.now();
        const now = await endOf(queue, id);
        if (now !== 'running') end = now;
      }
    }
    if (!end) return;
    if (!o.json && end.result !== undefined) io.stdout.write(`result ${printable(JSON.stringify(end.result))}\n`);
    if (end.state !== JobState.completed) {
      const why = end.error ? `: ${end.error.name}: ${end.error.message}` : '';
      throw new CliFailure(`job ${id} ended ${end.state}${why}`);
    }
  } finally {
    unlisten();
    subscription.unsubscribe();
  }
}
