/**
 * Group commit: calls made while the store is busy go out together in one
 * flush (one transaction). Each caller's promise settles only after the flush
 * that carried its item has committed: nothing is acknowledged early.
 *
 * A batch is formed when a flush *starts*, not when items arrive: while one
 * flush waits (for the disk, say, at `durability: 'full'`), everything pushed
 * meanwhile piles up for the next one instead of queueing as many small
 * flushes. Up to `maxInFlight` flushes run at once, so the next batch commits
 * while the previous one waits for its sync (the store keeps their order:
 * a flush's commit happens when it is called).
 */
export interface Batcher<T, R> {
  push(item: T): Promise<R>;
  /** Resolves when every item pushed so far has been flushed (not those pushed after the call). */
  drain(): Promise<void>;
  /** Items pushed and not yet settled. */
  backlog(): number;
}

interface Waiter<R> {
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

export function createBatcher<T, R>(flush: (items: T[]) => Promise<R[]>, options: { maxBatch?: number; maxInFlight?: number } = {}): Batcher<T, R> {
  const maxBatch = options.maxBatch ?? 1000;
  const maxInFlight = options.maxInFlight ?? 2;
  const items: T[] = [];
  const waiters: Array<Waiter<R>> = [];
  let scheduled = false;
  let outstanding = 0;
  // Items are numbered as they are pushed and batched in that order; `settled`
  // is how many of the first ones have settled. Flushes may end out of order
  // (two in flight), so a batch that ends early waits in `ended` for those
  // before it. drain() waits for the number pushed when it was called, not for
  // whatever keeps arriving after.
  let pushed = 0;
  let batched = 0;
  let settled = 0;
  const inFlight: Array<{ end: number; done: boolean }> = [];
  let drains: Array<{ upTo: number; resolve: () => void }> = [];

  const advance = () => {
    while (inFlight.length > 0 && inFlight[0]!.done) settled = inFlight.shift()!.end;
    if (drains.length === 0) return;
    const waiting = drains;
    drains = [];
    for (const d of waiting) {
      if (d.upTo <= settled) d.resolve();
      else drains.push(d);
    }
  };

  const flushOne = async (batch: T[], batchWaiters: Array<Waiter<R>>, mark: { end: number; done: boolean }): Promise<void> => {
    try {
      const results = await flush(batch);
      for (let i = 0; i < batchWaiters.length; i++) batchWaiters[i]!.resolve(results[i]!);
    } catch (err) {
      for (const w of batchWaiters) w.reject(err);
    } finally {
      outstanding -= batch.length;
      mark.done = true;
      advance();
      pump();
    }
  };

  const pump = (): void => {
    scheduled = false;
    while (items.length > 0 && inFlight.length < maxInFlight) {
      const batch = items.splice(0, maxBatch);
      batched += batch.length;
      const mark = { end: batched, done: false };
      inFlight.push(mark);
      void flushOne(batch, waiters.splice(0, batch.length), mark);
    }
  };

  return {
    push(item) {
      return new Promise<R>((resolve, reject) => {
        outstanding++;
        pushed++;
        items.push(item);
        waiters.push({ resolve, reject });
        // Calls in this turn of the event loop share the flush; a flush under way takes them when it ends.
        if (!scheduled && inFlight.length < maxInFlight) {
          scheduled = true;
          setImmediate(pump);
        }
      });
    },
    drain() {
      if (settled >= pushed) return Promise.resolve();
      const upTo = pushed;
      if (scheduled) pump();
      return new Promise<void>((resolve) => drains.push({ upTo, resolve }));
    },
    backlog: () => outstanding,
  };
}
