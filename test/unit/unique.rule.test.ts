/**
 * Which states hold a unique key, read off the job's machine: the base
 * machine's states, and a machine of one's own with an extra state.
 */
import { describe, expect, it } from 'vitest';
import { compileMachine } from '../../machines/compile.js';
import { createQuarantineMachine } from '../../machines/examples/quarantine.machine.js';
import { createJobMachine, type JobMachineContext } from '../../machines/job.machine.js';
import { claimRuleOf } from '../../src/engine/core/machine-registry.js';
import { UniqueSpan, uniqueNeed, type UniqueWhile } from '../../src/engine/core/unique.js';

/** The `while` values under which a job in `state` still holds its key. */
function heldIn(machine: ReturnType<typeof createJobMachine>, state: string): UniqueWhile[] {
  const m = compileMachine<JobMachineContext>(machine);
  const states = { initial: m.initial.state, claimed: claimRuleOf(m).to, finalStates: m.finalStates };
  const need = uniqueNeed(states, state);
  return (['pending', 'active', 'until-finished'] as const).filter((w) => UniqueSpan[w] >= need);
}

describe('the states a unique key is held in', () => {
  it('base machine: pending holds every span, processing active and longer, failed only until-finished, finished none', () => {
    const base = createJobMachine();
    expect(heldIn(base, 'pending')).toEqual(['pending', 'active', 'until-finished']);
    expect(heldIn(base, 'processing')).toEqual(['active', 'until-finished']);
    expect(heldIn(base, 'failed')).toEqual(['until-finished']);
    for (const finished of ['completed', 'dead', 'cancelled']) expect(heldIn(base, finished)).toEqual([]);
  });

  it("a machine's own non-final state holds 'until-finished' keys; a throttle key outlives every state", () => {
    const quarantine = createQuarantineMachine();
    expect(heldIn(quarantine, 'quarantined')).toEqual(['until-finished']);
    expect(heldIn(quarantine, 'dead')).toEqual([]);
    const m = compileMachine<JobMachineContext>(quarantine);
    const states = { initial: m.initial.state, claimed: 'processing', finalStates: m.finalStates };
    for (const s of ['pending', 'processing', 'quarantined', 'completed', 'dead']) expect(UniqueSpan.always).toBeGreaterThanOrEqual(uniqueNeed(states, s));
  });
});
