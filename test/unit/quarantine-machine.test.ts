import { describe, expect, it } from 'vitest';
import { assign, initialTransition, raise, setup, stateIn, transition, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import { compileMachine, MachineCompileError } from '../../machines/compile.js';
import { createQuarantineMachine, QUARANTINE_EXPIRY_MS } from '../../machines/examples/quarantine.machine.js';
import type { JobMachineContext } from '../../machines/job.machine.js';
import type { ErrorInfo } from '../../machines/policy.js';

type Event = { type: string } & Record<string, unknown>;
type Action = { type: string; params?: unknown };

const EXPIRY = 'xstate.after.quarantineExpiry.job.quarantined';
const RETRY_DUE = 'xstate.after.retryDelay.job.failed';
const SEVEN_DAYS = 7 * 24 * 60 * 60 * 1000;
const claim: Event = { type: 'job.claim' };
const approve: Event = { type: 'job.approve' };
const cancel: Event = { type: 'job.cancel' };
const badData: ErrorInfo = { name: 'ValidationError', message: 'row 7 has no id', code: 'LJ_ERR_VALIDATION' };
const fail = (error: ErrorInfo, random = 0): Event => ({ type: 'job.fail', error, random });

const machine = createQuarantineMachine({ attempts: 2, backoff: { type: 'fixed', delay: 500 } });
const table = compileMachine<JobMachineContext>(machine);

function drive(m: AnyStateMachine, events: Event[]) {
  let [snapshot, actions] = initialTransition(m) as [AnyMachineSnapshot, Action[]];
  for (const event of events) [snapshot, actions] = transition(m, snapshot, event) as [AnyMachineSnapshot, Action[]];
  return { snapshot, state: snapshot.value as string, context: snapshot.context as JobMachineContext, actions };
}

function runTable(events: Event[]) {
  let state = table.initial.state;
  let context = table.initial.context;
  let delayed: { eventType: string; delay: number } | undefined;
  for (const event of events) {
    const step = table.next(state, context, event);
    expect(step, `table refused ${event.type} in ${state}`).toBeDefined();
    ({ state, context, delayed } = step!);
  }
  return { state, context, delayed };
}

describe('quarantine machine through xstate transition()', () => {
  it('sends a ValidationError to quarantined instead of failed, recording it, with attempts left', () => {
    const { state, context } = drive(machine, [claim, fail(badData)]);
    expect(state).toBe('quarantined');
    expect(context).toEqual({ attempts: 1, lastError: badData, retryDelay: 0, retryLaters: 0 });
  });

  it('quarantines a ValidationError even on the last attempt, where the base machine would go dead', () => {
    const last = [claim, fail({ name: 'Error', message: 'x' }), { type: RETRY_DUE }, claim, fail(badData)];
    expect(drive(machine, last).state).toBe('quarantined');
  });

  it('schedules its own expiry of exactly 7 days on entering quarantined', () => {
    expect(QUARANTINE_EXPIRY_MS).toBe(SEVEN_DAYS);
    const raises = drive(machine, [claim, fail(badData)]).actions.filter((a) => a.type === 'xstate.raise');
    expect(raises.map((a) => a.params)).toMatchObject([{ delay: SEVEN_DAYS, event: { type: EXPIRY } }]);
  });

  it('leaves every other error to the base policy', () => {
    expect(drive(machine, [claim, fail({ name: 'TypeError', message: 'x' })]).state).toBe('failed');
    expect(drive(machine, [claim, fail({ name: 'Error', message: 'x', unrecoverable: true })]).state).toBe('dead');
    expect(drive(machine, [claim, { type: 'job.complete' }]).state).toBe('completed');
  });

  it('does not quarantine an expired lease, which is not bad data', () => {
    expect(drive(machine, [claim, { type: 'job.expire', error: badData, random: 0 }]).state).toBe('failed');
  });

  it('job.approve returns it to pending with a fresh attempt budget', () => {
    const { state, context } = drive(machine, [claim, fail(badData), approve]);
    expect(state).toBe('pending');
    expect(context).toEqual({ attempts: 0, lastError: badData, retryDelay: 0, retryLaters: 0 });
    expect(drive(machine, [claim, fail(badData), approve, claim, fail({ name: 'E', message: 'x' })]).state).toBe('failed');
  });

  it('job.cancel cancels it; only job.rerun takes it out again', () => {
    const { state, snapshot } = drive(machine, [claim, fail(badData), cancel]);
    expect(state).toBe('cancelled');
    for (const type of ['job.approve', 'job.claim', 'job.retry', EXPIRY]) expect(transition(machine, snapshot, { type })[0]).toBe(snapshot);
    expect(drive(machine, [claim, fail(badData), cancel, { type: 'job.rerun' }]).state).toBe('pending');
  });

  it('goes to dead on its own when the expiry is due', () => {
    expect(drive(machine, [claim, fail(badData), { type: EXPIRY }]).state).toBe('dead');
  });

  it('ignores claim, retry and approve where they do not apply', () => {
    const quarantined = drive(machine, [claim, fail(badData)]).snapshot;
    for (const type of ['job.claim', 'job.retry', 'job.complete']) expect(transition(machine, quarantined, { type })[0]).toBe(quarantined);
    const pending = drive(machine, []).snapshot;
    expect(transition(machine, pending, approve)[0]).toBe(pending);
  });

  it('uses the default policy when given none', () => {
    const m = createQuarantineMachine();
    expect(drive(m, [claim, fail(badData)]).state).toBe('quarantined');
    expect(drive(m, [claim, fail({ name: 'E', message: 'x' })]).context.retryDelay).toBe(1000);
  });
});

describe('quarantine machine through compileMachine', () => {
  it('lists quarantined among the states and the delayed states', () => {
    expect(table.states).toContain('quarantined');
    expect([...table.delayedStates].sort()).toEqual(['failed', 'quarantined', 'sleeping', 'waiting-message']);
    expect([...table.accepts('quarantined')].sort()).toEqual([EXPIRY, 'job.approve', 'job.cancel'].sort());
  });

  it('quarantines a ValidationError and reports the 7-day expiry as the delayed event', () => {
    expect(runTable([claim, fail(badData)])).toEqual({
      state: 'quarantined',
      context: { attempts: 1, lastError: badData, retryDelay: 0, retryLaters: 0 },
      delayed: { eventType: EXPIRY, delay: SEVEN_DAYS },
    });
    expect(table.due('quarantined', { attempts: 1, lastError: badData, retryDelay: 0, retryLaters: 0 })).toEqual({ eventType: EXPIRY, delay: SEVEN_DAYS });
  });

  it('approves, cancels and expires like xstate does', () => {
    expect(runTable([claim, fail(badData), approve])).toMatchObject({ state: 'pending', context: { attempts: 0 } });
    expect(runTable([claim, fail(badData), cancel]).state).toBe('cancelled');
    expect(runTable([claim, fail(badData), { type: EXPIRY }]).state).toBe('dead');
  });

  it('refuses events quarantined does not accept', () => {
    const { context } = runTable([claim, fail(badData)]);
    expect(table.next('quarantined', context, claim)).toBeUndefined();
    expect(table.next('pending', table.initial.context, approve)).toBeUndefined();
  });
});

describe('compileMachine refuses what the table cannot mirror', () => {
  const flat = { id: 'm', initial: 'a' } as const;

  it('refuses nested states', () => {
    const nested = setup({}).createMachine({ ...flat, states: { a: { initial: 'x', states: { x: {} } } } });
    expect(() => compileMachine(nested)).toThrow(MachineCompileError);
  });

  it('refuses eventless (always) transitions', () => {
    const eventless = setup({}).createMachine({ ...flat, states: { a: { always: { target: 'b' } }, b: {} } });
    expect(() => compileMachine(eventless)).toThrow(/always/);
    expect(() => compileMachine(eventless)).toThrow(MachineCompileError);
  });

  it('refuses a raise without a delay, in a transition or on entry', () => {
    const onTransition = setup({}).createMachine({ ...flat, states: { a: { on: { go: { actions: raise({ type: 'x' }) } } } } });
    expect(() => compileMachine(onTransition)).toThrow(MachineCompileError);
    const onEntry = setup({}).createMachine({ ...flat, states: { a: { entry: raise({ type: 'x' }) } } });
    expect(() => compileMachine(onEntry)).toThrow(MachineCompileError);
  });

  // compile.ts promises that a machine the table cannot mirror is refused at
  // compile time. A stateIn guard compiles, then throws a raw TypeError
  // ("snapshot.matches is not a function") on the first next() that reaches it.
  it('mirrors or refuses a stateIn guard, never throwing a TypeError on the hot path', () => {
    const guarded = setup({ guards: { inA: stateIn('a') } }).createMachine({
      ...flat,
      states: { a: { on: { go: { guard: 'inA', target: 'b' } } }, b: {} },
    });
    const [xstateNext] = transition(guarded, initialTransition(guarded)[0], { type: 'go' });
    let compiled: ReturnType<typeof compileMachine>;
    try {
      compiled = compileMachine(guarded);
    } catch (refused) {
      expect(refused).toBeInstanceOf(MachineCompileError);
      return;
    }
    expect(compiled.next('a', {}, { type: 'go' })?.state).toBe(xstateNext.value);
  });

  it('accepts a flat machine with assign and after, as a control', () => {
    const ok = setup({ delays: { soon: 5 } }).createMachine({
      ...flat,
      context: { n: 0 },
      states: { a: { on: { go: { target: 'b', actions: assign({ n: 1 }) } } }, b: { after: { soon: 'a' } } },
    });
    const compiled = compileMachine(ok);
    expect(compiled.next('a', { n: 0 }, { type: 'go' })).toEqual({
      state: 'b',
      context: { n: 1 },
      delayed: { eventType: 'xstate.after.soon.m.b', delay: 5 },
      effects: [],
    });
  });
});
