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
  // Within one millisecond, up to a thousand keep their order; a later millisecond always comes first.
  seq = now === lastMs ? Math.min(seq + 1, 999) : 0;
  lastMs = now;
  return -(now * 1000 + seq);
}

/** The run time a job shows: a LIFO job's stored one is its order, not a time. */
export function shownRunAt(runAt: number, createdAt: number): number {
  return runAt < 0 ? createdAt : runAt;
}
