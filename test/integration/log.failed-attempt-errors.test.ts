/**
 * A failed attempt and a dead job are logged with the handler's error as
 * pino's `err` serializer shows an Error: its class as `type` (not
 * "Object", what a stored plain error would give), its message, stack and code.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
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

it('logs the error of a failed attempt and of a dead job with its class, message, stack and code', async () => {
  const lines: Array<Record<string, unknown>> = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const q = fx.open({
    logger: pino({ level: 'warn' }, out),
    jobs: [
      defineJob({
        name: 'charge',
        retry: { attempts: 2, backoff: { type: 'fixed', delay: 0 } },
        handler: () => {
          throw new PaymentDeclined();
        },
      }),
    ],
  });
  const { id } = await q.enqueue('charge', null);
  const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead');
  await q.start();
  await dead;
  await waitFor(() => lines.some((l) => l.msg === 'job is dead'));
  for (const msg of ['attempt failed; will retry', 'job is dead']) {
    const line = lines.find((l) => l.msg === msg);
    expect(line?.err, msg).toMatchObject({ type: 'PaymentDeclined', name: 'PaymentDeclined', message: 'the card was declined', code: 'CARD_DECLINED' });
    expect((line!.err as { stack: string }).stack).toMatch(/^PaymentDeclined: the card was declined\n\s+at /);
  }
});
