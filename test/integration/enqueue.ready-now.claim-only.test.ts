/**
 * A job enqueued to run now is claimed straight away: the claim loop makes no
 * pass for due promotions (failed jobs whose retry came due) before it. On
 * PostgreSQL that pass is a query, a round trip between the enqueue and the
 * job's start. A job in a delayed state still comes due through a promotion
 * (retry.policy and custom-machine tests).
 */
import { expect, it } from 'vitest';
import { defineJob, type Store } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';

const fx = useQueues();

it('a job ready now starts without a due-promotion pass before it', async () => {
  const inner = fx.store();
  let promotions = 0;
  let looks = 0;
  // The real store, counting two of its reads: due promotions, and the due-time look each pass ends with.
  const store: Store = {
    ...inner,
    dueJobs: (...args) => {
      promotions++;
      return inner.dueJobs(...args);
    },
    nextDueAt: async (...args) => {
      const at = await inner.nextDueAt(...args);
      looks++;
      return at;
    },
  };
  let started!: () => void;
  const start = new Promise<void>((resolve) => (started = resolve));
  const queue = fx.open({ store, jobs: [defineJob({ name: 'a', handler: () => started() })] });
  await queue.start();
  // The first pass promotes whatever is already due, once, claims, finds nothing and looks for the next due time.
  while (looks === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const before = promotions;
  expect(before).toBe(1);
  await queue.enqueue('a', {});
  await start;
  expect(promotions).toBe(before);
});
