/**
 * The machine compiler reads a few xstate internals through one adapter
 * (machines/xstate-internals.ts). These tests build real xstate objects and
 * check each shape the adapter relies on, so that an xstate upgrade that
 * changes one fails here, naming it, rather than as a table that quietly
 * differs from xstate (or as a failure deep in the property test).
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { and, assign, cancel, emit, enqueueActions, log, not, or, raise, sendTo, setup, spawnChild, stateIn, stopChild } from 'xstate';
import { evaluateGuard } from 'xstate/guards';
import { MachineCompileError } from '../../machines/compile.js';
import { actionType, assignmentOf, BUILTIN_ACTION, BUILTIN_ACTION_PREFIX, guardOperands, raiseOf } from '../../machines/xstate-internals.js';

const XSTATE = (createRequire(import.meta.url)('xstate/package.json') as { version: string }).version;
const changed = (what: string) => `xstate ${XSTATE} changed the shape of ${what}: the compiler's adapter (machines/xstate-internals.ts) must be updated`;

type AnyFn = (...args: never[]) => unknown;
const fn = (f: unknown) => f as AnyFn;
/** The adapter call, with its own refusal turned into the test's message. */
const read = <T>(what: string, call: () => T): T => {
  try {
    return call();
  } catch (err) {
    throw new Error(changed(what), { cause: err });
  }
};

describe(`the xstate internals the machine compiler relies on (xstate ${XSTATE})`, () => {
  it('built-in actions carry their xstate type; the machine\'s own functions do not', () => {
    const builtins: Array<[string, unknown, string]> = [
      ['assign actions', assign({ n: 1 }), BUILTIN_ACTION.assign],
      ['raise actions', raise({ type: 'x' }), BUILTIN_ACTION.raise],
      ['cancel actions', cancel('id'), BUILTIN_ACTION.cancel],
      ['log actions', log('hello'), BUILTIN_ACTION.log],
      ['emit actions', emit({ type: 'x' }), BUILTIN_ACTION.emit],
    ];
    for (const [what, action, type] of builtins) expect(actionType(fn(action)), changed(`${what} (their \`type\`)`)).toBe(type);
    // The table refuses these by their prefix: it must see one.
    for (const [what, action] of [
      ['sendTo actions', sendTo('other', { type: 'x' })],
      ['enqueueActions actions', enqueueActions(() => {})],
      ['spawnChild actions', spawnChild('logic')],
      ['stopChild actions', stopChild('child')],
    ] as const) {
      expect(actionType(fn(action))?.startsWith(BUILTIN_ACTION_PREFIX), changed(`${what} (their \`type\`)`)).toBe(true);
    }
    expect(actionType(() => {}), 'a plain function must read as the machine\'s own side effect').toBeUndefined();
  });

  it('assign actions expose what they were given, a function or a map', () => {
    const assigner = ({ context }: { context: { n: number } }) => ({ n: context.n + 1 });
    expect(read('assign actions', () => assignmentOf(fn(assign(assigner)))), changed('assign actions (function `assignment`)')).toBe(assigner);
    const byKey = { n: ({ context }: { context: { n: number } }) => context.n + 1, label: 'x' };
    expect(read('assign actions', () => assignmentOf(fn(assign(byKey)))), changed('assign actions (keyed `assignment`)')).toBe(byKey);
  });

  it('raise actions expose their event and their delay (undefined when immediate)', () => {
    const event = { type: 'x' };
    expect(read('raise actions', () => raiseOf(fn(raise(event, { delay: 5 })))), changed('raise actions (numeric delay)')).toEqual({ event, delay: 5 });
    expect(read('raise actions', () => raiseOf(fn(raise(event, { delay: 'soon' as never })))), changed('raise actions (named delay)')).toEqual({ event, delay: 'soon' });
    expect(read('raise actions', () => raiseOf(fn(raise(event)))), changed('raise actions (no delay)')).toEqual({ event, delay: undefined });
    const expr = () => event;
    expect(read('raise actions', () => raiseOf(fn(raise(expr, { delay: 5 }))).event), changed('raise actions (event expression)')).toBe(expr);
  });

  it('`after` is armed by a delayed raise of the after event on entry, the delay being the one node.after reports', () => {
    const machine = setup({ delays: { soon: 5 } }).createMachine({
      id: 'm',
      initial: 'a',
      states: { a: { entry: log('in'), after: { soon: 'b', 10: 'b' } }, b: {} },
    });
    const node = machine.root.states.a!;
    const after = node.after.map((t) => ({ eventType: t.eventType, delay: t.delay }));
    expect(after, 'node.after (public) must list each delayed event with its delay').toEqual([
      { eventType: 'xstate.after.10.m.a', delay: 10 },
      { eventType: 'xstate.after.soon.m.a', delay: 'soon' },
    ]);
    const raises = node.entry.filter((a) => actionType(fn(a)) === BUILTIN_ACTION.raise).map((a) => read('raise actions', () => raiseOf(fn(a))));
    const armed = raises.map((r) => ({ eventType: (r.event as { type: string }).type, delay: r.delay }));
    expect(armed, changed('`after` delays (the entry raise that arms each one)')).toEqual(after);
    const cancels = node.exit.map((a) => actionType(fn(a)));
    expect(cancels, changed('`after` delays (the exit cancel that disarms each one)')).toEqual([BUILTIN_ACTION.cancel, BUILTIN_ACTION.cancel]);
  });

  it('and / or / not expose the guards they combine; stateIn and plain predicates combine none', () => {
    const a = () => true;
    expect(read('and/or/not guards', () => guardOperands(fn(and([a, 'named'])))), changed('and guards (`guards`)')).toEqual([a, 'named']);
    expect(read('and/or/not guards', () => guardOperands(fn(or(['named', a])))), changed('or guards (`guards`)')).toEqual(['named', a]);
    expect(read('and/or/not guards', () => guardOperands(fn(not('named')))), changed('not guards (`guards`)')).toEqual(['named']);
    expect(guardOperands(fn(stateIn('a'))), changed('stateIn guards')).toEqual([]);
    expect(guardOperands(fn(a)), 'a plain predicate combines no guards').toEqual([]);
  });

  it('built-in guards evaluated by evaluateGuard read the context they are given, not the snapshot\'s', () => {
    // The table hands evaluateGuard one snapshot per state, made once: only its state may matter.
    const machine = setup({ guards: { isOne: ({ context }: { context: { n: number } }) => context.n === 1 } }).createMachine({
      id: 'm',
      initial: 'a',
      context: { n: 0 },
      states: { a: {}, b: {} },
    });
    const staleA = machine.resolveState({ value: 'a', context: { n: 0 } });
    const event = { type: 'go' };
    const live = { n: 1 };
    expect(evaluateGuard(and(['isOne', stateIn('a')]), live, event, staleA), changed('and guards (they must pass the live context on)')).toBe(true);
    expect(evaluateGuard(or([not('isOne'), stateIn('b')]), live, event, staleA), changed('or/not guards (they must pass the live context on)')).toBe(false);
    expect(evaluateGuard(stateIn('#m.a'), live, event, staleA), changed('stateIn guards (state ids)')).toBe(true);
    expect(evaluateGuard(stateIn('b'), live, event, staleA), changed('stateIn guards (state values)')).toBe(false);
  });

  it('the adapter refuses, naming the shape, an action that lacks what it reads', () => {
    const bare = () => {};
    expect(() => assignmentOf(bare)).toThrow(MachineCompileError);
    expect(() => assignmentOf(bare)).toThrow(/changed the shape of assign actions/);
    expect(() => raiseOf(bare)).toThrow(/changed the shape of raise actions/);
    const brokenAnd = Object.assign(() => false, { check: () => false, guards: 'not a list' });
    expect(() => guardOperands(brokenAnd)).toThrow(/changed the shape of and\/or\/not guards/);
  });
});
