import { describe, expect, it } from 'vitest';
import { createBatcher } from '../../src/lib/batcher.js';

/** A flush the test completes by hand, recording each batch it was given. */
function manualFlush() {
  const batches: number[][] = [];
  const pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const flush = (items: number[]) => {
    batches.push(items);
    return new Promise<number[]>((resolve, reject) => pending.push({ resolve: () => resolve(items.map((n) => n * 10)), reject }));
  };
  return { batches, pending, flush };
}
const turn = () => new Promise((r) => setImmediate(r));

describe('createBatcher (group commit)', () => {
  it('pushes in one turn share a flush; pushes during a flush go out together in the next', async () => {
    const f = manualFlush();
    const b = createBatcher(f.flush, { maxInFlight: 1 });
    const first = [b.push(1), b.push(2)];
    await turn();
    expect(f.batches).toEqual([[1, 2]]);
    const later = [3, 4, 5].map((n) => b.push(n));
    await turn();
    const more = b.push(6);
    await turn();
    expect(f.batches).toHaveLength(1); // the flush under way holds the rest back
    expect(b.backlog()).toBe(6);
    f.pending[0]!.resolve();
    expect(await Promise.all(first)).toEqual([10, 20]);
    await turn();
    expect(f.batches).toEqual([[1, 2], [3, 4, 5, 6]]); // one batch, not one per turn
    f.pending[1]!.resolve();
    expect(await Promise.all([...later, more])).toEqual([30, 40, 50, 60]);
    expect(b.backlog()).toBe(0);
  });

  it('runs up to maxInFlight flushes at once, in order', async () => {
    const f = manualFlush();
    const b = createBatcher(f.flush, { maxInFlight: 2 });
    const a = b.push(1);
    await turn();
    const c = b.push(2);
    await turn();
    const d = b.push(3);
    await turn();
    expect(f.batches).toEqual([[1], [2]]);
    f.pending[0]!.resolve();
    await a;
    await turn();
    expect(f.batches).toEqual([[1], [2], [3]]);
    f.pending[1]!.resolve();
    f.pending[2]!.resolve();
    expect(await Promise.all([c, d])).toEqual([20, 30]);
  });

  it('a failed flush rejects its own callers only; drain waits for everything pushed', async () => {
    const f = manualFlush();
    const b = createBatcher(f.flush, { maxInFlight: 1, maxBatch: 2 });
    const results = [1, 2, 3].map((n) => b.push(n).then((r) => ({ ok: r }), (e: Error) => ({ err: e.message })));
    let drained = false;
    void b.drain().then(() => (drained = true));
    await turn();
    expect(f.batches).toEqual([[1, 2]]);
    f.pending[0]!.reject(new Error('disk full'));
    await turn();
    expect(f.batches).toEqual([[1, 2], [3]]);
    expect(drained).toBe(false);
    f.pending[1]!.resolve();
    expect(await Promise.all(results)).toEqual([{ err: 'disk full' }, { err: 'disk full' }, { ok: 30 }]);
    await turn();
    expect(drained).toBe(true);
    await b.drain(); // nothing outstanding: at once
  });

  it('drain waits for what was pushed before it, not for pushes that keep coming (a stop under steady load ends)', async () => {
    const f = manualFlush();
    const b = createBatcher(f.flush, { maxInFlight: 1 });
    const first = b.push(1);
    let drained = false;
    const drain = b.drain().then(() => (drained = true));
    const later = b.push(2); // arrives after the drain was asked for
    await turn();
    f.pending[0]!.resolve();
    await first;
    await drain;
    expect(drained).toBe(true);
    expect(b.backlog()).toBe(1); // item 2 is still on its way: the drain did not wait for it
    await turn();
    f.pending[1]!.resolve();
    expect(await later).toBe(20);
  });

  it('a later flush that ends first does not settle a drain that an earlier one still holds', async () => {
    const f = manualFlush();
    const b = createBatcher(f.flush, { maxInFlight: 2 });
    const a = b.push(1);
    await turn();
    const c = b.push(2);
    await turn();
    expect(f.batches).toEqual([[1], [2]]);
    let drained = false;
    void b.drain().then(() => (drained = true));
    f.pending[1]!.resolve(); // the second flush ends first
    await c;
    await turn();
    expect(drained).toBe(false);
    f.pending[0]!.resolve();
    await a;
    await turn();
    expect(drained).toBe(true);
  });
});
