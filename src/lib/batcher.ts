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
  /** Resolves when every item pushed so far has been flushed. */
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
  let inFlight = 0;
  let outstanding = 0;
  let idle: Array<() => void> = [];

  const settleIdle = () => {
    if (outstanding > 0) return;
    const done = idle;
    idle = [];
    for (const resolve of done) resolve();
  };

  const flushOne = async (batch: T[], batchWaiters: Array<Waiter<R>>): Promise<void> => {
    try {
      const results = await flush(batch);
      for (let i = 0; i < batchWaiters.length; i++) batchWaiters[i]!.resolve(results[i]!);
    } catch (err) {
      for (const w of batchWaiters) w.reject(err);
    } finally {
      outstanding -= batch.length;
      inFlight--;
      pump();
      settleIdle();
    }
  };

  const pump = (): void => {
    scheduled = false;
    while (items.length > 0 && inFlight < maxInFlight) {
      inFlight++;
      void flushOne(items.splice(0, maxBatch), waiters.splice(0, Math.min(maxBatch, waiters.length)));
    }
  };

  return {
    push(item) {
      return new Promise<R>((resolve, reject) => {
        outstanding++;
        items.push(item);
        waiters.push({ resolve, reject });
        // Calls in this turn of the event loop share the flush; a flush under way takes them when it ends.
        if (!scheduled && inFlight < maxInFlight) {
          scheduled = true;
          setImmediate(pump);
        }
      });
    },
    drain() {
      if (outstanding === 0) return Promise.resolve();
      if (scheduled) pump();
      return new Promise<void>((resolve) => idle.push(resolve));
    },
    backlog: () => outstanding,
  };
}
