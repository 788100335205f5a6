/**
 * The progress `litejobs migrate` writes on stderr: one line redrawn in place
 * on a terminal, a line every few seconds elsewhere (and one after the first
 * batch), each with copied/total, jobs/s and the time left.
 */
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/migrate-progress.js';

function stream(isTTY: boolean) {
  const chunks: string[] = [];
  return { isTTY, chunks, write: (text: string) => chunks.push(text) };
}

describe('migrate progress', () => {
  it('redraws one line on a terminal, then ends it', () => {
    let now = 0;
    const out = stream(true);
    const bar = createProgress(out, { now: () => now });
    now = 1000;
    bar.update(2000, 10_000);
    now = 2000;
    bar.update(4000, 10_000);
    bar.end();
    expect(out.chunks).toEqual([
      '\r\x1b[Kmigrate: 2000/10000 jobs (20%), 2000 jobs/s, 4.0 s left',
      '\r\x1b[Kmigrate: 4000/10000 jobs (40%), 2000 jobs/s, 3.0 s left',
      '\r\x1b[Kmigrate: 4000/10000 jobs (40%), 2000 jobs/s, 3.0 s left\n',
    ]);
  });

  it('writes a line after the first batch and then every few seconds when not on a terminal', () => {
    let now = 0;
    const out = stream(false);
    const bar = createProgress(out, { now: () => now, everyMs: 2000 });
    for (let done = 1000; done <= 10_000; done += 1000) {
      now += 500;
      bar.update(done, 10_000);
    }
    bar.end();
    expect(out.chunks).toEqual([
      'migrate: 1000/10000 jobs (10%), 2000 jobs/s, 4.5 s left\n',
      'migrate: 5000/10000 jobs (50%), 2000 jobs/s, 2.5 s left\n',
      'migrate: 9000/10000 jobs (90%), 2000 jobs/s, 500 ms left\n',
      'migrate: 10000/10000 jobs (100%), 2000 jobs/s\n',
    ]);
  });

  it('counts past the total when jobs arrive during the copy, and writes nothing without a batch', () => {
    let now = 0;
    const out = stream(false);
    const bar = createProgress(out, { now: () => now });
    now = 1000;
    bar.update(12, 10);
    bar.end();
    expect(out.chunks).toEqual(['migrate: 12/12 jobs (100%), 12 jobs/s\n']);
    const idle = stream(true);
    createProgress(idle, { now: () => 0 }).end();
    expect(idle.chunks).toEqual([]);
  });
});
