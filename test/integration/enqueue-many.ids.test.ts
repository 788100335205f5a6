/**
 * enqueueMany hands back, for each item, the id of the row holding that
 * item's job: keyless jobs go in many rows per statement (insert-rows.ts),
 * keyed, unique and lone ones one by one, mixed in any order within one
 * batch, after the newest ids were deleted too.
 */
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { ROWS_PER_STATEMENT } from '../../src/store/sqlite/insert-rows.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events } from '../helpers/wait.js';

const fx = useQueues();

type EnqueueItem = { name: string; payload: unknown; options?: Record<string, unknown> };

/** `n` keyless items whose payloads say where they are in the batch. */
const keyless = (from: number, n: number): EnqueueItem[] => Array.from({ length: n }, (_, k) => ({ name: 'j', payload: { at: from + k } }));

describe('enqueueMany ids', () => {
  it('name the row of each item, across runs of keyless jobs longer than a statement, keyed and unique jobs between them', async () => {
    const q = fx.open({ retention: { completed: 0 }, jobs: [defineJob({ name: 'done', handler: () => 'ok' })] });
    // The newest ids deleted first: the batch's first row takes an id past them.
    const gone = await q.enqueueMany(keyless(0, 3).map((item) => ({ ...item, name: 'done' })));
    const finished = events(q.events$, (e) => e.to === 'completed', gone.length);
    await q.start();
    await finished;
    await q.stop();

    const long = 2 * ROWS_PER_STATEMENT + 7;
    const items: EnqueueItem[] = [
      ...keyless(0, long),
      { name: 'j', payload: { at: long }, options: { key: 'k1' } },
      ...keyless(long + 1, 3),
      { name: 'j', payload: { at: long + 4 }, options: { unique: { key: 'u1' } } },
      ...keyless(long + 5, ROWS_PER_STATEMENT),
      // A key already taken in this batch: the first job's id, nothing inserted.
      { name: 'j', payload: { at: -1 }, options: { key: 'k1' } },
      ...keyless(long + 5 + ROWS_PER_STATEMENT, 2),
    ];
    const results = await q.enqueueMany(items);
    expect(results).toHaveLength(items.length);
    const created = results.filter((r) => r.created).map((r) => r.id);
    expect(new Set(created).size).toBe(created.length);
    expect(Math.min(...created)).toBeGreaterThan(Math.max(...gone.map((r) => r.id)));
    for (let i = 0; i < items.length; i++) {
      const job = await q.getJob(results[i]!.id);
      const at = (items[i]!.payload as { at: number }).at;
      // The repeated key hands back the job that holds it (payload of index `long`).
      expect(job.payload).toEqual({ at: at === -1 ? long : at });
    }
    expect(results[items.length - 3]).toMatchObject({ id: results[long]!.id, created: false });
    expect((await q.stats()).total).toBe(items.length - 1);
  });
});
