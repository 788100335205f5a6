/**
 * Graph coverage of the base job machine: xstate's graph utilities enumerate
 * the reachable snapshots and the machine's edges; every edge is then driven
 * through the compiled table, which must land where xstate does.
 *
 * Context is kept bounded (attempts 2, fixed backoff, one RetryLaterError in a row, one error of each kind)
 * so that the traversal ends.
 */
import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type AnyMachineSnapshot } from 'xstate';
import { getShortestPaths, getSimplePaths, toDirectedGraph } from 'xstate/graph';
import { compileMachine } from '../../machines/compile.js';
import { createJobMachine, JobState, type JobMachineContext } from '../../machines/job.machine.js';
import type { ErrorInfo } from '../../machines/policy.js';

type Event = { type: string } & Record<string, unknown>;
interface Path {
  state: AnyMachineSnapshot;
  steps: Array<{ event: Event; state: AnyMachineSnapshot }>;
}

// maxRetryLater bounds the run of RetryLaterErrors the context counts.
const machine = createJobMachine({ attempts: 2, backoff: { type: 'fixed', delay: 10 }, maxRetryLater: 1 });
const table = compileMachine<JobMachineContext>(machine);

const plain: ErrorInfo = { name: 'Error', message: 'boom' };
const EVENTS: Event[] = [
  { type: 'job.claim' },
  { type: 'job.complete' },
  { type: 'job.fail', error: plain, random: 0 },
  { type: 'job.fail', error: { name: 'RetryLaterError', message: 'later', retryAfter: 5 }, random: 0 },
  { type: 'job.fail', error: { name: 'UnrecoverableError', message: 'no', unrecoverable: true }, random: 0 },
  { type: 'job.expire', error: plain, random: 0 },
  { type: 'job.release' },
  { type: 'job.cancel' },
  { type: 'job.retry' },
  { type: 'xstate.after.retryDelay.job.failed' },
];
/** Sleeps, waits for messages and flows: in every traversal but the simple paths, whose number they multiply past what a test can walk. */
const LATER_EVENTS: Event[] = [
  { type: 'job.sleep', delay: 50 },
  { type: 'xstate.after.sleepDelay.job.sleeping' },
  { type: 'job.wait', topic: 'paid', delay: 50 },
  { type: 'job.message' },
  { type: 'xstate.after.waitDelay.job.waiting-message' },
  { type: 'job.children', failed: false },
  { type: 'job.children', failed: true, error: { name: 'ChildFailedError', message: 'child 2 (x) ended dead' } },
  { type: 'job.rerun' },
  { type: 'job.promote' },
  { type: 'job.update' },
];
/** A flow's parent is created in waiting-children: no path from pending leads there. */
const FLOW_PARENT = JobState.waitingChildren;

const SIMPLE_EVENTS = EVENTS;
const ALL_EVENTS = [...EVENTS, ...LATER_EVENTS];
const shortest = getShortestPaths(machine, { events: ALL_EVENTS }) as unknown as Path[];
const simple = getSimplePaths(machine, { events: SIMPLE_EVENTS }) as unknown as Path[];
const edges = toDirectedGraph(machine).children.flatMap((node) => node.edges);

/** The transition definitions xstate picks for an event (what toDirectedGraph calls edges). */
const taken = (snapshot: AnyMachineSnapshot, event: Event): unknown[] => machine.getTransitionData(snapshot, event as never);

/**
 * Replays a path's events through the compiled table, demanding at each step
 * the state and context xstate recorded; returns the xstate transitions taken.
 */
function replayThroughTable(events: Event[], expected: AnyMachineSnapshot[], collect = false): unknown[] {
  let [snapshot] = initialTransition(machine);
  let state = table.initial.state;
  let context = table.initial.context;
  const used: unknown[] = [];
  events.forEach((event, i) => {
    if (collect) used.push(...taken(snapshot, event));
    const step = table.next(state, context, event);
    expect(step, `table refused ${event.type} in ${state}`).toBeDefined();
    ({ state, context } = step!);
    expect(state).toBe(expected[i]!.value);
    expect(context).toStrictEqual(expected[i]!.context);
    snapshot = expected[i]!;
  });
  return used;
}

const eventsOf = (path: Path) => path.steps.filter((s) => s.event.type !== 'xstate.init');

describe('job machine graph', () => {
  it('lists the edges of the lifecycle diagram', () => {
    const triples = edges.map((e) => `${e.source.key} -${e.label.text}-> ${e.target.key}`);
    expect(new Set(triples)).toEqual(
      new Set([
        'pending -job.claim-> processing',
        'pending -job.cancel-> cancelled',
        'processing -job.complete-> completed',
        'processing -job.fail-> failed',
        'processing -job.fail-> dead',
        'processing -job.expire-> failed',
        'processing -job.expire-> dead',
        'processing -job.release-> pending',
        'processing -job.cancel-> cancelled',
        'failed -job.cancel-> cancelled',
        'failed -xstate.after.retryDelay.job.failed-> pending',
        'dead -job.retry-> pending',
        'processing -job.sleep-> sleeping',
        'sleeping -xstate.after.sleepDelay.job.sleeping-> pending',
        'sleeping -job.cancel-> cancelled',
        'processing -job.wait-> waiting-message',
        'waiting-message -job.message-> pending',
        'waiting-message -xstate.after.waitDelay.job.waiting-message-> pending',
        'waiting-message -job.cancel-> cancelled',
        'waiting-children -job.children-> dead',
        'waiting-children -job.children-> pending',
        'waiting-children -job.cancel-> cancelled',
        'pending -job.promote-> pending',
        'pending -job.update-> pending',
        'failed -job.promote-> pending',
        'sleeping -job.promote-> pending',
        'completed -job.rerun-> pending',
        'cancelled -job.rerun-> pending',
      ]),
    );
    // processing has three job.fail candidates: retry later, retry, dead.
    expect(edges.filter((e) => e.source.key === 'processing' && e.label.text === 'job.fail')).toHaveLength(3);
  });

  it('reaches every state from pending', () => {
    const reached = new Set(shortest.map((p) => p.state.value as string));
    expect([...reached].sort()).toEqual(Object.values(JobState).filter((s) => s !== FLOW_PARENT).sort());
    expect([...reached, FLOW_PARENT].sort()).toEqual([...table.states].sort());
  });

  it('the compiled table follows every shortest path xstate finds', () => {
    expect(shortest.length).toBeGreaterThan(10);
    for (const path of shortest) {
      const steps = eventsOf(path);
      replayThroughTable(
        steps.map((s) => s.event),
        steps.map((s) => s.state),
      );
    }
  });

  it('the compiled table follows every simple path xstate finds', () => {
    expect(simple.length).toBeGreaterThan(shortest.length);
    for (const path of simple) {
      const steps = eventsOf(path);
      replayThroughTable(
        steps.map((s) => s.event),
        steps.map((s) => s.state),
      );
    }
  });

  it('covers every edge, guarded candidates included, by a path driven through the table', () => {
    const covered = new Set<unknown>();
    const uncovered: string[] = [];
    for (const edge of edges) {
      if (edge.source.key === FLOW_PARENT) continue; // below
      // A shortest path to the edge's source state, then the event that takes this very edge.
      let found = false;
      for (const path of shortest) {
        if (path.state.value !== edge.source.key) continue;
        const event = ALL_EVENTS.find((e) => e.type === edge.label.text && taken(path.state, e).includes(edge.transition));
        if (!event) continue;
        const steps = eventsOf(path);
        const [after] = transition(machine, path.state, event as never);
        const used = replayThroughTable([...steps.map((s) => s.event), event], [...steps.map((s) => s.state), after], true);
        expect(after.value).toBe(edge.target.key);
        for (const t of used) covered.add(t);
        found = true;
        break;
      }
      if (!found) uncovered.push(edge.id);
    }
    expect(uncovered).toEqual([]);
    expect(edges.filter((e) => e.source.key !== FLOW_PARENT && !covered.has(e.transition)).map((e) => e.id)).toEqual([]);
  });

  it("takes every edge out of waiting-children, in the table as in xstate", () => {
    const [initial] = initialTransition(machine);
    const start = machine.resolveState({ value: FLOW_PARENT, context: initial.context });
    const out = edges.filter((e) => e.source.key === FLOW_PARENT);
    expect(out).toHaveLength(3);
    for (const edge of out) {
      const event = ALL_EVENTS.find((e) => e.type === edge.label.text && taken(start, e).includes(edge.transition))!;
      expect(event, edge.id).toBeDefined();
      const [after] = transition(machine, start, event as never);
      const step = table.next(FLOW_PARENT, table.initial.context, event)!;
      expect([step.state, after.value]).toEqual([edge.target.key, edge.target.key]);
      expect(step.context).toStrictEqual(after.context);
    }
  });
});
