/**
 * A transition records which guarded candidate the machine took, so the
 * dashboard draws it on the right edge: a failure that will be retried takes
 * `job.fail [canRetry]` (the edge `processing:job.fail:failed#2`), not the
 * first candidate to `failed` (`[wantsRetryLater]`). Every edge id a history
 * shows names an edge of machineGraph.
 */
import { describe, expect, it } from 'vitest';
import { createJobMachine } from '../../machines/job.machine.js';
import { defineJob, machineGraph, RetryLaterError, type Transition } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events } from '../helpers/wait.js';

const fx = useQueues();
const edgeIds = new Set(machineGraph(createJobMachine()).edges.map((e) => e.id));
const idOf = (t: Transition) => `${t.from}:${t.event}:${t.to}${t.candidate ? `#${t.candidate}` : ''}`;

describe('history candidates', () => {
  it('names the guarded edge each transition took', async () => {
    let runs = 0;
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'flaky',
          retry: { attempts: 3, backoff: { type: 'fixed', delay: 1 } },
          handler: async () => {
            runs++;
            if (runs === 1) throw new RetryLaterError(1); // the first candidate to failed
            if (runs === 2) throw new Error('boom'); // the second: canRetry
            return 'ok';
          },
        }),
      ],
    });
    const { id } = await q.enqueue('flaky', {});
    const done = events(q.events$, (e) => e.job.id === id && e.to === 'completed', 1);
    await q.start();
    await done;
    const history = await q.history(id);
    const fails = history.filter((t) => t.event === 'job.fail');
    expect(fails.map((t) => [t.to, t.candidate])).toEqual([
      ['failed', undefined],
      ['failed', 2],
    ]);
    expect(fails.map(idOf)).toEqual(['processing:job.fail:failed', 'processing:job.fail:failed#2']);
    for (const t of history.filter((h) => h.from !== null)) expect(edgeIds.has(idOf(t)), idOf(t)).toBe(true);
  });
});
