/** LIFO per enqueue (`enqueue(…, { lifo: true })`): where such a job stands in line, and how it reads back. */

/**
 * A LIFO job's run time: below every real one (so it is due, and claimed
 * ahead of its priority's waiting jobs, which go by run time), and lower the
 * later it was enqueued (the newest first), in steps finer than a
 * millisecond so a batch's items keep their order. Views show such a job's
 * run time as its creation (`shownRunAt`).
 */
let lastMs = 0;
let seq = 0;
export function lifoRunAt(now: number): number {
  // A thousand places per millisecond; past them (or a clock set back) the place moves on to the next
  // millisecond, so every LIFO job this process enqueues goes ahead of the ones before it.
  if (now > lastMs) {
    lastMs = now;
    seq = 0;
  } else if (++seq > 999) {
    lastMs += 1;
    seq = 0;
  }
  return -(lastMs * 1000 + seq);
}

/** The run time a job shows: a LIFO job's stored one is its order, not a time. */
export function shownRunAt(runAt: number, createdAt: number): number {
  return runAt < 0 ? createdAt : runAt;
}
