/**
 * Cross-process latency: a producer in a child process (children/latency-producer.ts)
 * enqueues one job at a time with its send time in the payload; the consumer
 * in this process reports each job's start through `waiter`. Both processes
 * read the same machine clock.
 */
import { exited, forkChild, nextMessage } from './child.js';
import { sleep, withTimeout } from './stats.js';

export type Started = { resolve?: (payload: { t?: number }, at: number) => void };

/** Wall-clock ms with sub-millisecond precision, comparable across processes. */
export const wallNow = () => performance.timeOrigin + performance.now();

/** Drives a child producer: one {go} at a time, 2 ms apart; returns each job's send-to-start time. */
export async function fromChild(args: string[], samples: number, waiter: Started): Promise<number[]> {
  const child = forkChild('latency-producer.ts', args);
  const what = `${args[0]} cross-process latency sample`;
  const out: number[] = [];
  try {
    await nextMessage(child, (m): m is { type: 'ready' } => (m as { type?: string }).type === 'ready', 30_000);
    for (let s = 0; s < samples; s++) {
      const at = new Promise<number>((resolve) => (waiter.resolve = (p) => resolve(wallNow() - (p.t ?? Number.NaN))));
      child.send({ type: 'go', i: s });
      out.push(await withTimeout(at, 10_000, what));
      await sleep(2);
    }
  } finally {
    if (child.connected) child.send({ type: 'exit' });
    await exited(child, 10_000);
  }
  return out;
}
