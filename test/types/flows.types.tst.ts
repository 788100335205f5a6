/**
 * Flows and batches on a typed queue: every job of a flow, at any depth, is
 * typed by its name, as enqueue is; the handler's ctx has children() and
 * childCounts(). Never run, only type-checked by `npm test` (tsc): each
 * `@ts-expect-error` line must be an error.
 */
import { expectTypeOf } from 'vitest';
import { createQueue, defineJob, type BatchResult, type FlowResult, type Job } from '../../src/index.js';

const page = defineJob({ name: 'page', handler: async ({ n }: { n: number }) => n });
const book = defineJob({
  name: 'book',
  handler: async ({ title }: { title: string }, ctx) => {
    expectTypeOf(await ctx.children()).toEqualTypeOf<Job[]>();
    expectTypeOf(await ctx.childCounts()).toEqualTypeOf<Record<string, number>>();
    return title;
  },
});
// Never called: the types are what is under test.
const typed = () => createQueue({ path: ':memory:', jobs: [page, book] });

export function flowsAreTypedByName() {
  const queue = typed();
  expectTypeOf(
    queue.enqueueFlow({ name: 'book', payload: { title: 'a' }, onChildFailure: 'continue', children: [{ name: 'page', payload: { n: 1 } }] }),
  ).toEqualTypeOf<Promise<FlowResult>>();
  void queue.enqueueFlow({ name: 'book', payload: { title: 'a' }, children: [{ name: 'book', payload: { title: 'b' }, children: [{ name: 'page', payload: { n: 2 } }] }] });
  // @ts-expect-error a child's payload is checked by its name
  void queue.enqueueFlow({ name: 'book', payload: { title: 'a' }, children: [{ name: 'page', payload: { title: 'x' } }] });
  // @ts-expect-error deep down too
  void queue.enqueueFlow({ name: 'book', payload: { title: 'a' }, children: [{ name: 'book', payload: { title: 'b' }, children: [{ name: 'page', payload: { n: '2' } }] }] });
  // @ts-expect-error an unknown name
  void queue.enqueueFlow({ name: 'chapter', payload: {} });
  // @ts-expect-error the policy is 'fail' or 'continue'
  void queue.enqueueFlow({ name: 'book', payload: { title: 'a' }, onChildFailure: 'ignore' });
}

export function batchesAreTypedByName() {
  const queue = typed();
  expectTypeOf(queue.enqueueBatch([{ name: 'page', payload: { n: 1 } }], { onComplete: { name: 'book', payload: { title: 'a' } } })).toEqualTypeOf<Promise<BatchResult>>();
  // @ts-expect-error the onComplete payload is checked by its name
  void queue.enqueueBatch([{ name: 'page', payload: { n: 1 } }], { onComplete: { name: 'book', payload: { n: 1 } } });
  // @ts-expect-error so are the items'
  void queue.enqueueBatch([{ name: 'page', payload: { n: 'one' } }], { onComplete: { name: 'book', payload: { title: 'a' } } });
}
