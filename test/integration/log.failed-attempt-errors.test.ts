/**
 * A failed attempt and a dead job are logged with the handler's error as
 * pino's `err` serializer shows an Error: its class as `type` (not
 * "Object", what a stored plain error would give), its message, stack and code.
 * An attempt the machine does not count (the handler asked to run again
 * later) says so, with the number of the attempt that ran.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { defineJob, RetryLaterError } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent, waitFor } from '../helpers/wait.js';

const fx = useQueues();

class PaymentDeclined extends Error {
  code = 'CARD_DECLINED';
  constructor() {
    super('the card was declined');
    this.name = 'PaymentDeclined';
  }
}

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level: 'warn' }, out) };
}

/** Runs one job of `handler` (retried at once, `attempts` in all) on a queue logging to `capture()`, until it reaches `until`; answers the lines logged. */
async function runOne(handler: () => unknown, attempts: number, until: 'dead' | 'completed') {
  const { lines, logger } = capture();
  const q = fx.open({ logger, jobs: [defineJob({ name: 'job', retry: { attempts, backoff: { type: 'fixed', delay: 0 } }, handler })] });
  const { id } = await q.enqueue('job', null);
  const ended = nextEvent(q.events$, (e) => e.job.id === id && e.to === until);
  await q.start();
  await ended;
  return lines;
}

it('logs the error of a failed attempt and of a dead job with its class, message, stack and code', async () => {
  const lines = await runOne(() => {
    throw new PaymentDeclined();
  }, 2, 'dead');
  await waitFor(() => lines.some((l) => l.msg === 'job is dead'));
  for (const msg of ['attempt failed; will retry', 'job is dead']) {
    const line = lines.find((l) => l.msg === msg);
    expect(line?.err, msg).toMatchObject({ type: 'PaymentDeclined', name: 'PaymentDeclined', message: 'the card was declined', code: 'CARD_DECLINED' });
    expect((line!.err as { stack: string }).stack).toMatch(/^PaymentDeclined: the card was declined\n\s+at /);
  }
});

it('an attempt that asked to run again later is logged as not counted, with the attempt that ran', async () => {
  let runs = 0;
  const lines = await runOne(() => {
    if (++runs === 1) throw new RetryLaterError(0, 'not ready yet');
    if (runs === 2) throw new Error('flaky');
    return 'ok';
  }, 3, 'completed');
  await waitFor(() => lines.filter((l) => (l.msg as string).startsWith('attempt')).length === 2);
  const [later, failed] = lines.filter((l) => (l.msg as string).startsWith('attempt'));
  expect(later).toMatchObject({ msg: 'attempt asked to run again later; not counted against its attempts', attempt: 1, attemptsSpent: 0, err: { message: 'not ready yet' } });
  // The next run is attempt 1 again: the first was given back.
  expect(failed).toMatchObject({ msg: 'attempt failed; will retry', attempt: 1, err: { message: 'flaky' } });
  expect(failed).not.toHaveProperty('attemptsSpent');
});
