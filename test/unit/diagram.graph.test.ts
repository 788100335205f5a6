/**
 * machineGraph reads a job machine into the plain model every diagram is
 * drawn from: the base machine's real states and edges, a user machine's
 * extra state with its edges, and the machines it refuses.
 */
import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { createQuarantineMachine } from '../../machines/examples/quarantine.machine.js';
import { createJobMachine } from '../../machines/job.machine.js';
import { machineGraph, type MachineGraph, ValidationError } from '../../src/index.js';
import { eventName } from '../../machines/event-name.js';

const AFTER_RETRY = 'xstate.after.retryDelay.job.failed';
const AFTER_SLEEP = 'xstate.after.sleepDelay.job.sleeping';
const AFTER_WAIT = 'xstate.after.waitDelay.job.waiting-message';

describe('machineGraph of the base job machine', () => {
  const graph = machineGraph(createJobMachine());

  it('starts in pending and lists every state with its final and delayed flags', () => {
    expect(graph.initial).toBe('pending');
    expect(graph.states).toEqual([
      { id: 'pending', final: false, delayed: false },
      { id: 'processing', final: false, delayed: false },
      { id: 'sleeping', final: false, delayed: true },
      { id: 'waiting-message', final: false, delayed: true },
      { id: 'waiting-children', final: false, delayed: false },
      { id: 'failed', final: false, delayed: true },
      { id: 'dead', final: true, delayed: false },
      { id: 'completed', final: true, delayed: false },
      { id: 'cancelled', final: true, delayed: false },
    ]);
  });

  it('lists every edge in the order the machine tries them, with guards, [else] and the after label', () => {
    expect(graph.edges).toEqual([
      { id: 'pending:job.claim:processing', from: 'pending', to: 'processing', event: 'job.claim', label: 'job.claim' },
      { id: 'pending:job.cancel:cancelled', from: 'pending', to: 'cancelled', event: 'job.cancel', label: 'job.cancel' },
      { id: 'pending:job.promote:pending', from: 'pending', to: 'pending', event: 'job.promote', label: 'job.promote' },
      { id: 'pending:job.update:pending', from: 'pending', to: 'pending', event: 'job.update', label: 'job.update' },
      { id: 'processing:job.complete:completed', from: 'processing', to: 'completed', event: 'job.complete', label: 'job.complete' },
      { id: 'processing:job.fail:failed', from: 'processing', to: 'failed', event: 'job.fail', label: 'job.fail [wantsRetryLater]', guard: 'wantsRetryLater' },
      { id: 'processing:job.fail:failed#2', from: 'processing', to: 'failed', event: 'job.fail', label: 'job.fail [canRetry]', guard: 'canRetry' },
      { id: 'processing:job.fail:dead', from: 'processing', to: 'dead', event: 'job.fail', label: 'job.fail [else]', else: true },
      { id: 'processing:job.expire:failed', from: 'processing', to: 'failed', event: 'job.expire', label: 'job.expire [canRetry]', guard: 'canRetry' },
      { id: 'processing:job.expire:dead', from: 'processing', to: 'dead', event: 'job.expire', label: 'job.expire [else]', else: true },
      { id: 'processing:job.release:pending', from: 'processing', to: 'pending', event: 'job.release', label: 'job.release' },
      { id: 'processing:job.sleep:sleeping', from: 'processing', to: 'sleeping', event: 'job.sleep', label: 'job.sleep' },
      { id: 'processing:job.wait:waiting-message', from: 'processing', to: 'waiting-message', event: 'job.wait', label: 'job.wait' },
      { id: 'processing:job.cancel:cancelled', from: 'processing', to: 'cancelled', event: 'job.cancel', label: 'job.cancel' },
      { id: 'sleeping:job.cancel:cancelled', from: 'sleeping', to: 'cancelled', event: 'job.cancel', label: 'job.cancel' },
      { id: 'sleeping:job.promote:pending', from: 'sleeping', to: 'pending', event: 'job.promote', label: 'job.promote' },
      { id: 'sleeping:after sleepDelay:pending', from: 'sleeping', to: 'pending', event: AFTER_SLEEP, label: 'after sleepDelay' },
      { id: 'waiting-message:job.message:pending', from: 'waiting-message', to: 'pending', event: 'job.message', label: 'job.message' },
      { id: 'waiting-message:job.cancel:cancelled', from: 'waiting-message', to: 'cancelled', event: 'job.cancel', label: 'job.cancel' },
      { id: 'waiting-message:after waitDelay:pending', from: 'waiting-message', to: 'pending', event: AFTER_WAIT, label: 'after waitDelay' },
      { id: 'waiting-children:job.children:dead', from: 'waiting-children', to: 'dead', event: 'job.children', label: 'job.children [childFailed]', guard: 'childFailed' },
      { id: 'waiting-children:job.children:pending', from: 'waiting-children', to: 'pending', event: 'job.children', label: 'job.children [else]', else: true },
      { id: 'waiting-children:job.cancel:cancelled', from: 'waiting-children', to: 'cancelled', event: 'job.cancel', label: 'job.cancel' },
      { id: 'failed:job.cancel:cancelled', from: 'failed', to: 'cancelled', event: 'job.cancel', label: 'job.cancel' },
      { id: 'failed:job.promote:pending', from: 'failed', to: 'pending', event: 'job.promote', label: 'job.promote' },
      { id: 'failed:after retryDelay:pending', from: 'failed', to: 'pending', event: AFTER_RETRY, label: 'after retryDelay' },
      { id: 'dead:job.retry:pending', from: 'dead', to: 'pending', event: 'job.retry', label: 'job.retry' },
      { id: 'completed:job.rerun:pending', from: 'completed', to: 'pending', event: 'job.rerun', label: 'job.rerun' },
      { id: 'cancelled:job.rerun:pending', from: 'cancelled', to: 'pending', event: 'job.rerun', label: 'job.rerun' },
    ]);
  });

  it('is plain data: it survives JSON unchanged, and its edge ids are unique', () => {
    expect(JSON.parse(JSON.stringify(graph))).toEqual(graph);
    expect(new Set(graph.edges.map((e) => e.id)).size).toBe(graph.edges.length);
  });

  it('gives the same ids whatever the retry policy', () => {
    const other = machineGraph(createJobMachine({ attempts: 9, backoff: { type: 'fixed', delay: 5 } }));
    expect(other).toEqual(graph);
  });
});

describe('machineGraph of a user machine', () => {
  it('shows an extra state added with createJobMachine(policy, extension) and its edges', () => {
    const pausable = createJobMachine(undefined, {
      states: {
        paused: {
          after: { 86400000: { target: 'cancelled' } },
          on: { 'job.resume': { target: 'pending' }, 'job.cancel': { target: 'cancelled' } },
        },
      },
      on: { pending: { 'job.pause': { target: 'paused' } } },
    });
    const graph = machineGraph(pausable);
    expect(graph.states.map((s) => s.id)).toEqual(['pending', 'processing', 'sleeping', 'waiting-message', 'waiting-children', 'failed', 'dead', 'completed', 'cancelled', 'paused']);
    expect(graph.states.at(-1)).toEqual({ id: 'paused', final: false, delayed: true });
    // The extension's candidates come before the base state's own.
    expect(graph.edges.filter((e) => e.from === 'pending').map((e) => e.id)).toEqual([
      'pending:job.claim:processing',
      'pending:job.cancel:cancelled',
      'pending:job.promote:pending',
      'pending:job.update:pending',
      'pending:job.pause:paused',
    ]);
    expect(graph.edges.filter((e) => e.from === 'paused').map((e) => [e.id, e.label])).toEqual([
      ['paused:job.resume:pending', 'job.resume'],
      ['paused:job.cancel:cancelled', 'job.cancel'],
      ['paused:after 86400000 ms:cancelled', 'after 86400000 ms'],
    ]);
  });

  it('shows the quarantine example: its guarded job.fail first, and the quarantined state with its delayed edge', () => {
    const graph = machineGraph(createQuarantineMachine());
    expect(graph.states).toContainEqual({ id: 'quarantined', final: false, delayed: true });
    expect(graph.edges.filter((e) => e.event === 'job.fail').map((e) => e.label)).toEqual([
      'job.fail [isBadData]',
      'job.fail [wantsRetryLater]',
      'job.fail [canRetry]',
      'job.fail [else]',
    ]);
    expect(graph.edges.filter((e) => e.from === 'quarantined' || e.to === 'quarantined').map((e) => e.id)).toEqual([
      'processing:job.fail:quarantined',
      'quarantined:job.approve:pending',
      'quarantined:job.cancel:cancelled',
      'quarantined:after quarantineExpiry:dead',
    ]);
  });
});

describe('a delayed edge, as history shows it', () => {
  it("eventName gives each delayed transition its edge's name, delays with dots and numbers included", () => {
    const machine = createMachine({
      id: 'job',
      initial: 'a',
      states: {
        a: { after: { 'grace.period': 'b' } },
        b: { after: { 1500: 'c' } },
        c: { type: 'final' },
      },
    });
    const delayed = machineGraph(machine).edges.filter((e) => e.event.startsWith('xstate.after.'));
    expect(delayed.map((e) => [e.event, e.id])).toEqual([
      ['xstate.after.grace.period.job.a', 'a:after grace.period:b'],
      ['xstate.after.1500.job.b', 'b:after 1500 ms:c'],
    ]);
    for (const e of delayed) expect(`${e.from}:${eventName(e.event, e.from)}:${e.to}`).toBe(e.id);
    expect(eventName('job.fail', 'processing')).toBe('job.fail');
  });
});

describe('machineGraph refuses', () => {
  function refusal(build: () => MachineGraph): ValidationError {
    try {
      build();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return error as ValidationError;
    }
    throw new Error('machineGraph accepted the machine');
  }

  it('refuses a job machine with a nested state (LJ_ERR_VALIDATION)', () => {
    const nested = createJobMachine(undefined, {
      states: { review: { initial: 'queued', states: { queued: { on: { 'job.look': 'open' } }, open: {} } } },
    });
    const error = refusal(() => machineGraph(nested));
    expect(error.code).toBe('LJ_ERR_VALIDATION');
    expect(error.message).toContain('"review"');
  });

  it('refuses parallel states and transitions on the root', () => {
    const parallel = createMachine({ initial: 'a', states: { a: { type: 'parallel', states: { x: {}, y: {} } } } });
    expect(refusal(() => machineGraph(parallel)).code).toBe('LJ_ERR_VALIDATION');
    const rootOn = createMachine({ initial: 'a', on: { reset: '.a' }, states: { a: { on: { go: 'b' } }, b: {} } });
    expect(refusal(() => machineGraph(rootOn)).message).toContain('root');
  });
});
