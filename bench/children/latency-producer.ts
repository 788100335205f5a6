/**
 * Producer in a process of its own for the cross-process latency scenario.
 * argv: <litejobs|bullmq> <db path | BullMQ queue name>. On each {go} message
 * it enqueues one job whose payload carries the wall-clock send time (ms,
 * sub-millisecond precision: performance.timeOrigin + performance.now()).
 */
import { Queue } from 'bullmq';
import { connection, PREFIX } from '../peers/bullmq.js';
import { JOB, openLitejobs } from '../peers/litejobs.js';

const [system, target] = process.argv.slice(2) as [string, string];
const send = (m: unknown) => process.send!(m);
const now = () => performance.timeOrigin + performance.now();

let enqueue: (payload: { i: number; t: number }) => Promise<unknown>;
let close: () => Promise<void>;
if (system === 'litejobs') {
  const { queue } = openLitejobs(target, {});
  enqueue = (p) => queue.enqueue(JOB, p);
  close = () => queue.close();
} else {
  const queue = new Queue(target, { connection: connection(), prefix: PREFIX });
  await queue.waitUntilReady();
  enqueue = (p) => queue.add(JOB, p);
  close = () => queue.close();
}

process.on('message', (m: { type: string; i?: number }) => {
  if (m.type === 'go') {
    enqueue({ i: m.i ?? 0, t: now() }).then(
      () => send({ type: 'sent' }),
      (err: Error) => send({ type: 'error', message: err.message }),
    );
  } else if (m.type === 'exit') {
    void close().finally(() => process.exit(0));
  }
});
send({ type: 'ready' });
