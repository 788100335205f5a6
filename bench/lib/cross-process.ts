/**
 * Cross-process latency: a producer in a child process (children/latency-producer.ts)
 * enqueues one job at a time with its send time in the payload; the consumer
 * in this process reports each job's start through `waiter`. Both processes
 * read the same machine clock (wallNow).
 */
import { exited, forkChild, nextMessage } from './child.js';
import { sleep, withTimeout } from './stats.js';

export type Started = { resolve?: (payload: { t?: number }, at: number) => void };

/**
 * The machine's monotonic clock (CLOCK_MONOTONIC), ms with sub-millisecond
 * precision: one clock for every process of the machine. Not
 * `performance.timeOrigin + performance.now()`: each process fixes its
 * timeOrigin from the wall clock when it starts, so two processes started
 * either side of a clock adjustment (NTP slewing a drifting VM clock) read
 * seconds apart, and cross-process latencies came out near −9 s.
 */
export const wallNow = () => Number(process.hrtime.bigint()) / 1e6;

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
      const ms = await withTimeout(at, 10_000, what);
      // A start before its send: the two processes' clocks disagree, and every figure would be wrong.
      if (!(ms >= 0)) throw new Error(`${what}: ${ms} ms, a job started before it was sent`);
      out.push(ms);
      await sleep(2);
    }
  } finally {
    if (child.connected) child.send({ type: 'exit' });
    await exited(child, 10_000);
  }
  return out;
}
