/**
 * Groups calls made in the same turn of the event loop into one flush (one
 * transaction). Each caller's promise settles only after the flush that
 * carried its item has committed: nothing is acknowledged early.
 */
export interface Batcher<T, R> {
  push(item: T): Promise<R>;
  /** Resolves when every item pushed so far has been flushed. */
  drain(): Promise<void>;
  /** Items pushed and not yet settled. */
  backlog(): number;
}

export function createBatcher<T, R>(flush: (items: T[]) => Promise<R[]>, maxBatch = 1000): Batcher<T, R> {
  const items: T[] = [];
  const waiters: Array<{ resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  let scheduled = false;
  let inFlight: Promise<void> = Promise.resolve();
  let outstanding = 0;

  const run = (): void => {
    scheduled = false;
    while (items.length > 0) {
      const batch = items.splice(0, maxBatch);
      const batchWaiters = waiters.splice(0, batch.length);
      inFlight = inFlight.then(async () => {
        try {
          const results = await flush(batch);
          for (let i = 0; i < batchWaiters.length; i++) batchWaiters[i]!.resolve(results[i]!);
        } catch (err) {
          for (const w of batchWaiters) w.reject(err);
        } finally {
          outstanding -= batch.length;
        }
      });
    }
  };

  return {
    push(item) {
      return new Promise<R>((resolve, reject) => {
        outstanding++;
        items.push(item);
        waiters.push({ resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(run);
        }
      });
    },
    async drain() {
      if (scheduled) run();
      await inFlight;
    },
    backlog: () => outstanding,
  };
}
