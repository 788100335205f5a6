/** machine: the compiled transition table vs xstate's pure transition(), same event sequence. */
import { initialTransition, transition, type AnyMachineSnapshot } from 'xstate';
import { compileMachine } from '../../machines/compile.js';
import { createJobMachine, type JobMachineContext } from '../../machines/job.machine.js';
import { alternate, ratios, roundsFor } from '../lib/rounds.js';
import type { Metric, Scenario } from '../lib/types.js';

const OPS: Metric = { key: 'ops', label: 'transitions', unit: 'ops/s', better: 'higher' };

export const machineScenario: Scenario = {
  name: 'machine',
  title: 'Job machine: compiled table vs xstate transition()',
  async run(ctx) {
    const started = Date.now();
    const machine = createJobMachine({ attempts: 3, backoff: { type: 'exponential', delay: 100 } });
    const table = compileMachine<JobMachineContext>(machine);
    // pending → processing → failed → (retry delay) pending → processing → completed
    const probe = table.next('processing', table.next('pending', table.initial.context, { type: 'job.claim' })!.context, {
      type: 'job.fail',
      error: { name: 'Error', message: 'boom' },
      random: 0.5,
    } as { type: string });
    const delayed = table.due('failed', probe!.context)?.eventType;
    if (!delayed) throw new Error('machine: failed state has no delayed event');
    const events: Array<{ type: string } & Record<string, unknown>> = [
      { type: 'job.claim' },
      { type: 'job.fail', error: { name: 'Error', message: 'boom' }, random: 0.5 },
      { type: delayed },
      { type: 'job.claim' },
      { type: 'job.complete' },
    ];
    const sequences = ctx.quick ? 2_000 : 10_000;
    const rounds = roundsFor(ctx, 5);
    let sink = 0;

    const runTable = () => {
      for (let s = 0; s < sequences; s++) {
        let state = table.initial.state;
        let context = table.initial.context;
        for (const e of events) {
          const step = table.next(state, context, e)!;
          state = step.state;
          context = step.context;
        }
        if (state === 'completed') sink++;
      }
    };
    const runXstate = () => {
      for (let s = 0; s < sequences; s++) {
        let snap: AnyMachineSnapshot = initialTransition(machine)[0];
        for (const e of events) snap = transition(machine, snap, e as never)[0];
        if (snap.value === 'completed') sink++;
      }
    };
    const time = (fn: () => void) => {
      const t0 = performance.now();
      fn();
      return { ops: (sequences * events.length) / ((performance.now() - t0) / 1000) };
    };
    runTable(); // warm both up once
    runXstate();
    if (sink !== 2 * sequences) throw new Error(`machine: ${sink}/${2 * sequences} sequences ended in completed`);

    const rows = await alternate(ctx, 'machine', rounds, [
      { label: 'compiled table', system: 'litejobs', run: async () => time(runTable) },
      { label: 'xstate transition()', system: 'xstate', run: async () => time(runXstate) },
    ]);
    return {
      name: 'machine',
      title: this.title,
      description:
        `${sequences.toLocaleString('en-US')} runs per round of the sequence claim → fail → ${delayed} → claim → complete on the default job machine ` +
        '(3 attempts, exponential backoff), through compileMachine(createJobMachine()).next and through xstate transition() (which also pays initialTransition per run).',
      metrics: [OPS],
      config: { sequences, eventsPerSequence: events.length, policy: { attempts: 3, backoff: 'exponential 100 ms' } },
      rounds,
      rows,
      ratios: ratios(rows, 'ops', [['compiled table', 'xstate transition()']]),
      checks: [],
      notes: [],
      skipped: [],
      durationMs: Date.now() - started,
    };
  },
};
