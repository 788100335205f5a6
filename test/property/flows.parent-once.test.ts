/**
 * Random flow trees (depth up to 3, up to 3 children a node; leaves that
 * complete, die, or fail once and then complete; parents of either policy),
 * run by two queues on one database, as two processes would.
 *
 * Properties, for every tree:
 * - a parent's handler runs exactly once if it is to complete, never if a
 *   child's failure fails it;
 * - when it runs, every one of its children has finished (what
 *   `ctx.children()` shows it);
 * - every job ends in the state its tree says: a leaf as its outcome, a
 *   parent `dead` when it fails with a child ('fail'), `completed` otherwise.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineJob, UnrecoverableError, type FlowJob, type Queue } from '../../src/index.js';
import { TEST_STORE, useQueues } from '../helpers/queue-fixture.js';
import { propertyRuns } from '../helpers/property-runs.js';

const fx = useQueues();

type Outcome = 'ok' | 'dead' | 'flaky';
interface Tree {
  outcome: Outcome;
  policy: 'fail' | 'continue';
  children: Tree[];
}

const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.record({
    outcome: fc.constantFrom<Outcome>('ok', 'ok', 'dead', 'flaky'),
    policy: fc.constantFrom<'fail' | 'continue'>('fail', 'continue'),
    children: fc.oneof({ maxDepth: 3, depthIdentifier: 'tree' }, fc.constant<Tree[]>([]), fc.array(tie('tree') as fc.Arbitrary<Tree>, { minLength: 1, maxLength: 3 })),
  }),
})).tree;

/** The state a node's job ends in. */
function expected(tree: Tree): string {
  if (tree.children.length === 0) return tree.outcome === 'dead' ? 'dead' : 'completed';
  const failed = tree.children.some((c) => expected(c) === 'dead');
  return failed && tree.policy === 'fail' ? 'dead' : 'completed';
}

const FINISHED = ['completed', 'dead', 'cancelled'];
const RUNS = propertyRuns(1) * (TEST_STORE === 'postgres' ? 12 : 25);

describe('flows: random trees', () => {
  it('a parent completes exactly once, and only after all its children finished', async () => {
    const parentRuns = new Map<number, number>();
    const violations: string[] = [];
    const flaky = new Set<number>();
    const leaf = defineJob({
      name: 'leaf',
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 0 } },
      handler: async ({ outcome }: { outcome: Outcome }, ctx) => {
        await new Promise((r) => setTimeout(r, Math.random() * 3));
        if (outcome === 'dead') throw new UnrecoverableError('dies');
        if (outcome === 'flaky' && !flaky.has(ctx.jobId)) {
          flaky.add(ctx.jobId);
          throw new Error('fails once');
        }
      },
    });
    const parent = defineJob({
      name: 'parent',
      handler: async (_: { policy: string }, ctx) => {
        parentRuns.set(ctx.jobId, (parentRuns.get(ctx.jobId) ?? 0) + 1);
        for (const child of await ctx.children()) {
          if (!FINISHED.includes(child.state)) violations.push(`parent ${ctx.jobId} ran while child ${child.id} was ${child.state}`);
        }
      },
    });
    const options = { jobs: [leaf, parent], concurrency: 4, pollInterval: 20 };
    const queues: Queue[] = [fx.open(options), fx.open(options)];
    for (const q of queues) await q.start();

    const toFlow = (tree: Tree): FlowJob =>
      tree.children.length === 0
        ? { name: 'leaf', payload: { outcome: tree.outcome } }
        : { name: 'parent', payload: { policy: tree.policy }, onChildFailure: tree.policy, children: tree.children.map(toFlow) };

    await fc.assert(
      fc.asyncProperty(treeArb, async (tree) => {
        const result = await queues[0]!.enqueueFlow(toFlow(tree) as never);
        // Every job of the tree, with the state it must end in.
        const jobs: Array<{ id: number; want: string; parent: boolean }> = [];
        const walk = (t: Tree, r: typeof result) => {
          jobs.push({ id: r.id, want: expected(t), parent: t.children.length > 0 });
          t.children.forEach((c, i) => {
            walk(c, r.children[i]!);
          });
        };
        walk(tree, result);
        const deadline = Date.now() + 30_000;
        let states: string[] = [];
        for (;;) {
          states = await Promise.all(jobs.map(async (j) => (await queues[1]!.getJob(j.id)).state));
          if (states.every((s) => FINISHED.includes(s))) break;
          if (Date.now() > deadline) throw new Error(`unfinished: ${JSON.stringify(states)}`);
          await new Promise((r) => setTimeout(r, 10));
        }
        expect(states).toEqual(jobs.map((j) => j.want));
        for (const j of jobs.filter((x) => x.parent)) expect(parentRuns.get(j.id) ?? 0).toBe(j.want === 'completed' ? 1 : 0);
        expect(violations).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });
});
