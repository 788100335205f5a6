/**
 * A machine the queue cannot use is refused with a MachineCompileError, which
 * is a LitejobsError (`LJ_ERR_MACHINE`) like every other error litejobs
 * raises, and is refused when it is compiled, not on the first job.
 */
import { describe, expect, it } from 'vitest';
import { and, assign, enqueueActions, fromCallback, raise, sendTo, setup, stateIn, type AnyStateMachine } from 'xstate';
import { compileMachine, MachineCompileError } from '../../machines/compile.js';
import { MachineCompileError as FromIndex } from '../../machines/index.js';
import { createJobMachine } from '../../machines/job.machine.js';
import { LitejobsError } from '../../src/errors.js';

const flat = { id: 'm', initial: 'a' } as const;

/** The error compileMachine throws, which must be a MachineCompileError with the machine code. */
function refusal(machine: AnyStateMachine): MachineCompileError {
  let thrown: unknown;
  try {
    compileMachine(machine);
  } catch (err) {
    thrown = err;
  }
  expect(thrown, 'compileMachine accepted a machine the table cannot mirror').toBeInstanceOf(MachineCompileError);
  expect((thrown as LitejobsError).code).toBe('LJ_ERR_MACHINE');
  return thrown as MachineCompileError;
}

describe('MachineCompileError', () => {
  it('is a LitejobsError with code LJ_ERR_MACHINE, its own name, and the cause given', () => {
    const cause = new Error('inner');
    const err = new MachineCompileError('state "a" invokes actors', { cause });
    expect(err).toBeInstanceOf(LitejobsError);
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe('LJ_ERR_MACHINE');
    expect(err.name).toBe('MachineCompileError');
    expect(err.message).toBe('state "a" invokes actors');
    expect(err.cause).toBe(cause);
  });

  it('is the same class from machines/index.ts and machines/compile.ts', () => {
    expect(FromIndex).toBe(MachineCompileError);
  });

  it('is what the job machine raises for a misused extension', () => {
    expect(() => createJobMachine(undefined, { states: { pending: {} } })).toThrow(MachineCompileError);
    expect(() => createJobMachine(undefined, { on: { nowhere: {} } as never })).toThrow(LitejobsError);
  });
});

describe('compileMachine refuses, with a MachineCompileError, a machine the table cannot mirror', () => {
  it('nested and parallel states', () => {
    expect(refusal(setup({}).createMachine({ ...flat, states: { a: { initial: 'x', states: { x: {} } } } })).message).toMatch(/compound/);
    expect(refusal(setup({}).createMachine({ id: 'm', type: 'parallel', states: { a: {}, b: {} } })).message).toMatch(/child states/);
  });

  it('eventless (always) transitions, on a state or at the root', () => {
    expect(refusal(setup({}).createMachine({ ...flat, states: { a: { always: { target: 'b' } }, b: {} } })).message).toMatch(/always/);
    expect(refusal(setup({}).createMachine({ ...flat, always: { target: '.b' }, states: { a: {}, b: {} } })).message).toMatch(/always/);
  });

  it('invoked actors', () => {
    const invoking = setup({ actors: { logic: fromCallback(() => {}) } }).createMachine({ ...flat, states: { a: { invoke: { src: 'logic' } } } });
    expect(refusal(invoking).message).toMatch(/invokes/);
  });

  it('a raise without a delay, in a transition, on entry or on exit', () => {
    expect(refusal(setup({}).createMachine({ ...flat, states: { a: { on: { go: { actions: raise({ type: 'x' }) } } } } })).message).toMatch(/raise/);
    expect(refusal(setup({}).createMachine({ ...flat, states: { a: { entry: raise({ type: 'x' }) }, b: {} } })).message).toMatch(/raise/);
    expect(refusal(setup({}).createMachine({ ...flat, states: { a: { exit: raise({ type: 'x' }) } } })).message).toMatch(/raise/);
  });

  it('a delayed raise anywhere but on entry, or of an event computed at run time', () => {
    const onTransition = { actions: raise({ type: 'x' }, { delay: 5 }) };
    expect(refusal(setup({}).createMachine({ ...flat, states: { a: { on: { go: onTransition } } } })).message).toMatch(/raise/);
    const computed = raise(({ context }: { context: { n: number } }) => ({ type: `x${context.n}` }), { delay: 5 });
    expect(refusal(setup({}).createMachine({ ...flat, context: { n: 0 }, states: { a: { entry: computed as never } } })).message).toMatch(/fixed event/);
  });

  it('wildcard events, full and partial', () => {
    expect(refusal(setup({}).createMachine({ ...flat, states: { a: { on: { '*': { target: 'b' } } }, b: {} } })).message).toMatch(/wildcard/);
    expect(refusal(setup({}).createMachine({ ...flat, states: { a: { on: { 'job.*': { target: 'b' } } }, b: {} } })).message).toMatch(/wildcard/);
  });

  it('root-level transitions and targets outside the root\'s states', () => {
    expect(refusal(setup({}).createMachine({ ...flat, on: { go: '.b' }, states: { a: {}, b: {} } })).message).toMatch(/root-level/);
    expect(refusal(setup({}).createMachine({ ...flat, states: { a: { on: { go: '#m' } } } })).message).toMatch(/not a state at the root/);
  });

  it('actions the table cannot run: sendTo, enqueueActions', () => {
    const send = sendTo('other', { type: 'x' });
    expect(refusal(setup({}).createMachine({ ...flat, states: { a: { on: { go: { actions: send as never } } } } })).message).toMatch(/xstate\.sendTo/);
    const enqueue = enqueueActions(() => {});
    expect(refusal(setup({}).createMachine({ ...flat, states: { a: { entry: enqueue as never } } })).message).toMatch(/xstate\.enqueueActions/);
  });

  it('unimplemented actions and guards, nested ones included, before any event', () => {
    expect(refusal(setup({}).createMachine({ ...flat, states: { a: { on: { go: { actions: 'nope' as never } } } } })).message).toMatch(/"nope"/);
    const top = setup({}).createMachine({ ...flat, states: { a: { on: { go: { guard: 'missing' as never, target: 'b' } } }, b: {} } });
    expect(refusal(top).message).toMatch(/"missing"/);
    const nested = setup({ guards: { here: () => true } }).createMachine({
      ...flat,
      states: { a: { on: { go: { guard: and(['here', 'absent' as never]), target: 'b' } } }, b: {} },
    });
    expect(refusal(nested).message).toMatch(/"absent"/);
  });

  it('accepts, as a control, a flat machine with guards, assign, after and a hand-written delayed raise on entry', () => {
    const ok = setup({ guards: { inA: stateIn('#m.a') }, delays: { soon: 5 } }).createMachine({
      ...flat,
      context: { n: 0 },
      states: {
        a: { on: { go: { guard: and(['inA', ({ context }) => context.n === 0]), target: 'b', actions: assign({ n: 1 }) } } },
        b: { entry: raise({ type: 'ping' }, { delay: 3 }), after: { soon: 'a' }, on: { ping: 'a' } },
      },
    });
    const table = compileMachine(ok);
    expect(table.next('a', { n: 0 }, { type: 'go' })).toEqual({ state: 'b', context: { n: 1 }, delayed: { eventType: 'ping', delay: 3 }, effects: [] });
    expect(table.next('a', { n: 1 }, { type: 'go' })).toBeUndefined();
  });
});
