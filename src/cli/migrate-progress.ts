/**
 * The copy's progress on stderr: on a terminal one line redrawn in place
 * (copied/total, jobs/s, time left); elsewhere (a pipe, a log) a line every
 * few seconds, and one after the first batch so a reader knows it started.
 */
import { formatDuration } from './format.js';
import type { OutStream } from './io.js';

export interface ProgressOptions {
  now: () => number;
  /** Between lines when not on a terminal, ms. */
  everyMs?: number;
}

export interface Progress {
  update(done: number, total: number): void;
  /** Draws the last state and ends the line. */
  end(): void;
}

export const PROGRESS_EVERY_MS = 2000;

export function createProgress(out: OutStream, o: ProgressOptions): Progress {
  const started = o.now();
  const every = o.everyMs ?? PROGRESS_EVERY_MS;
  const tty = out.isTTY === true;
  let last: { done: number; total: number } | undefined;
  let printedAt: number | undefined;
  let printedDone = -1;
  let drawn = false;
  const line = (done: number, total: number) => {
    const shown = Math.max(total, done);
    const seconds = (o.now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const percent = shown > 0 ? Math.floor((done / shown) * 100) : 100;
    const eta = rate > 0 && done < shown ? `, ${formatDuration(((shown - done) / rate) * 1000)} left` : '';
    return `migrate: ${done}/${shown} jobs (${percent}%), ${Math.round(rate)} jobs/s${eta}`;
  };
  return {
    update(done, total) {
      last = { done, total };
      if (tty) {
        out.write(`\r\x1b[K${line(done, total)}`);
        drawn = true;
        return;
      }
      const now = o.now();
      if (printedAt !== undefined && now - printedAt < every) return;
      printedAt = now;
      printedDone = done;
      out.write(`${line(done, total)}\n`);
    },
    end() {
      if (!last) return;
      if (tty) {
        if (drawn) out.write(`\r\x1b[K${line(last.done, last.total)}\n`);
        return;
      }
      if (printedDone !== last.done) out.write(`${line(last.done, last.total)}\n`);
    },
  };
}
