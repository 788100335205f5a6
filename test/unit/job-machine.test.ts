import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import { createJobMachine, FINISHED_STATES, type JobMachineContext } from '../../machines/job.machine.js';
import type { ErrorInfo, RetryPolicy } from '../../machines/policy.js';

type Event = { type: string } & Record<string, unknown>;
type Action = { type: string; params?: unknown };

const RETRY_DUE = 'xstate.after.retryDelay.job.failed';
const claim: Event = { type: 'job.claim' };
const complete: Event = { type: 'job.complete' };
const release: Event = { type: 'job.release' };
const cancel: Event = { type: 'job.cancel' };
const retry: Event = { type: 'job.retry' };
const due: Event = { type: RETRY_DUE };
const rerun: Event = { type: 'job.rerun' };
const promote: Event = { type: 'job.promote' };
const error = (over: Partial<ErrorInfo> = {}): ErrorInfo => ({ name: 'Error', message: 'boom', ...over });
const fail = (e: ErrorInfo = error(), random = 0): Event => ({ type: 'job.fail', error: e, random });
const expire = (e: ErrorInfo = error({ name: 'LeaseExpired' }), random = 0): Event => ({ type: 'job.expire', error: e, random });

/** Runs events through xstate's pure transition(); returns the last snapshot and its actions. */
function drive(machine: AnyStateMachine, events: Event[]) {
  let [snapshot, actions] = initialTransition(machine) as [AnyMachineSnapshot, Action[]];
  for (const event of events) [snapshot, actions] = transition(machine, snapshot, event) as [AnyMachineSnapshot, Action[]];
  return { snapshot, state: snapshot.value as string, context: snapshot.context as JobMachineContext, actions };
}

/** The delayed events xstate asks to schedule (an xstate.raise with params.delay). */
function scheduled(actions: Action[]) {
  return actions
    .filter((a) => a.type === 'xstate.raise')
    .map((a) => a.params as { delay?: number; event: { type: string } })
    .filter((p) => p.delay !== undefined)
    .map((p) => ({ event: p.event.type, delay: p.delay }));
}

const policy: RetryPolicy = { attempts: 3, backoff: { type: 'exponential', delay: 100, factor: 3 } };
const machine = createJobMachine(policy);

describe('claim and complete', () => {
  it('starts pending with no attempt spent and no error', () => {
    const { state, context } = drive(machine, []);
    expect(state).toBe('pending');
    expect(context).toEqual({ attempts: 0, lastError: null, retryDelay: 0, retryLaters: 0 });
  });

  it('a claim moves pending to processing and spends one attempt', () => {
    const { state, context } = drive(machine, [claim]);
    expect(state).toBe('processing');
    expect(context.attempts).toBe(1);
  });

  it('each new claim after a retry spends another attempt', () => {
    expect(drive(machine, [claim, fail(), due, claim]).context.attempts).toBe(2);
  });

  it('complete moves processing to the finished state completed', () => {
    const { state, actions } = drive(machine, [claim, complete]);
    expect(state).toBe('completed');
    expect(FINISHED_STATES).toContain(state);
    expect(scheduled(actions)).toEqual([]);
  });

  it('a claim is ignored while processing', () => {
    const before = drive(machine, [claim]).snapshot;
    const [after, actions] = transition(machine, before, claim);
    expect(after).toBe(before);
    expect(actions).toEqual([]);
    expect((after.context as JobMachineContext).attempts).toBe(1);
  });
});

describe('a failed attempt', () => {
  it('with attempts left goes to failed, records the error and schedules the backoff delay', () => {
    const e = error({ name: 'NetError', code: 'E_NET' });
    const first = drive(machine, [claim, fail(e)]);
    expect(first.state).toBe('failed');
    expect(first.context).toEqual({ attempts: 1, lastError: e, retryDelay: 100, retryLaters: 0 });
    const second = drive(machine, [claim, fail(), due, claim, fail()]);
    expect(second.context.retryDelay).toBe(300);
  });

  it('announces the retry as an xstate.raise of the after event with params.delay', () => {
    expect(scheduled(drive(machine, [claim, fail()]).actions)).toEqual([{ event: RETRY_DUE, delay: 100 }]);
    expect(scheduled(drive(machine, [claim, fail(), due, claim, fail()]).actions)).toEqual([{ event: RETRY_DUE, delay: 300 }]);
  });

  it('returns to pending when the delayed event arrives, keeping the attempts spent', () => {
    const { state, context } = drive(machine, [claim, fail(), due]);
    expect(state).toBe('pending');
    expect(context.attempts).toBe(1);
  });

  it('applies jitter from the event random', () => {
    const jittered = createJobMachine({ attempts: 2, backoff: { type: 'fixed', delay: 1000 }, jitter: 0.5 });
    expect(drive(jittered, [claim, fail(error(), 0.5)]).context.retryDelay).toBe(750);
    expect(scheduled(drive(jittered, [claim, fail(error(), 0)]).actions)).toEqual([{ event: RETRY_DUE, delay: 1000 }]);
  });

  it('on the last attempt goes to dead and schedules nothing', () => {
    const { state, context, actions } = drive(machine, [claim, fail(), due, claim, fail(), due, claim, fail()]);
    expect(state).toBe('dead');
    expect(context.attempts).toBe(3);
    expect(scheduled(actions)).toEqual([]);
  });

  it('with attempts: 1 goes straight to dead', () => {
    expect(drive(createJobMachine({ attempts: 1 }), [claim, fail()]).state).toBe('dead');
  });
});

describe('what the error says', () => {
  it('retryAfter (RetryLaterError) waits exactly that long and refunds the attempt', () => {
    const e = error({ name: 'RetryLaterError', retryAfter: 4321 });
    const { state, context, actions } = drive(machine, [claim, fail(e, 0.9)]);
    expect(state).toBe('failed');
    expect(context).toEqual({ attempts: 0, lastError: e, retryDelay: 4321, retryLaters: 1 });
    expect(scheduled(actions)).toEqual([{ event: RETRY_DUE, delay: 4321 }]);
  });

  it('retryAfter is capped by maxDelay', () => {
    const capped = createJobMachine({ maxDelay: 1000 });
    const { context, actions } = drive(capped, [claim, fail(error({ retryAfter: 10 * 24 * 3600 * 1000 }))]);
    expect(context.retryDelay).toBe(1000);
    expect(scheduled(actions)).toEqual([{ event: RETRY_DUE, delay: 1000 }]);
  });

  it('past maxRetryLater RetryLaterErrors in a row, the next one spends an attempt (so a job cannot ask forever)', () => {
    const bounded = createJobMachine({ attempts: 2, maxRetryLater: 3, backoff: { type: 'fixed', delay: 10 } });
    const later = fail(error({ name: 'RetryLaterError', retryAfter: 5 }));
    const three = drive(bounded, [claim, later, due, claim, later, due, claim, later, due]);
    expect([three.state, three.context.attempts, three.context.retryLaters]).toEqual(['pending', 0, 3]);
    // The fourth in a row fails like any error: one attempt spent, the backoff's delay, and the count starts over.
    const fourth = drive(bounded, [claim, later, due, claim, later, due, claim, later, due, claim, later]);
    expect([fourth.state, fourth.context.attempts, fourth.context.retryDelay, fourth.context.retryLaters]).toEqual(['failed', 1, 10, 0]);
    // With no attempt left, it is dead instead of asking again.
    const last = drive(bounded, [claim, later, due, claim, later, due, claim, later, due, claim, later, due, claim, later, due, claim, later, due, claim, later, due, claim, later]);
    expect(last.state).toBe('dead');
  });

  it('retryAfter is honoured even on the last attempt, since it spends none', () => {
    const once = createJobMachine({ attempts: 1 });
    const { state, context } = drive(once, [claim, fail(error({ retryAfter: 50 }))]);
    expect([state, context.attempts, context.retryDelay]).toEqual(['failed', 0, 50]);
  });

  it('retryAfter is rounded to whole milliseconds and never negative', () => {
    expect(drive(machine, [claim, fail(error({ retryAfter: 10.4 }))]).context.retryDelay).toBe(10);
    expect(drive(machine, [claim, fail(error({ retryAfter: -5 }))]).context.retryDelay).toBe(0);
  });

  it('unrecoverable goes to dead with attempts left', () => {
    const e = error({ name: 'UnrecoverableError', unrecoverable: true });
    const { state, context } = drive(machine, [claim, fail(e)]);
    expect([state, context.attempts, context.lastError]).toEqual(['dead', 1, e]);
  });

  it('unrecoverable wins over retryAfter', () => {
    expect(drive(machine, [claim, fail(error({ retryAfter: 10, unrecoverable: true }))]).state).toBe('dead');
  });

  it('deadOn sends a matching error (by name or by code) to dead with attempts left', () => {
    const m = createJobMachine({ ...policy, deadOn: ['AuthError', 'E_GONE'] });
    expect(drive(m, [claim, fail(error({ name: 'AuthError' }))]).state).toBe('dead');
    expect(drive(m, [claim, fail(error({ code: 'E_GONE' }))]).state).toBe('dead');
    expect(drive(m, [claim, fail(error({ name: 'NetError' }))]).state).toBe('failed');
  });

  it('retryOn retries only matching errors and sends the rest to dead', () => {
    const m = createJobMachine({ ...policy, retryOn: (e) => e.code === 'ECONNRESET' });
    expect(drive(m, [claim, fail(error({ code: 'ECONNRESET' }))]).state).toBe('failed');
    expect(drive(m, [claim, fail(error({ code: 'EACCES' }))]).state).toBe('dead');
  });
});

describe('expire, release, cancel, retry', () => {
  it('an expired lease is retried even when retryOn does not name it (deadOn still can)', () => {
    const only = createJobMachine({ attempts: 3, retryOn: ['NetworkError'] });
    const expired = error({ name: 'LeaseExpiredError', code: 'LJ_ERR_LEASE_LOST' });
    expect(drive(only, [claim, expire(expired)]).state).toBe('failed');
    expect(drive(only, [claim, fail(error({ name: 'TypeError' }))]).state).toBe('dead');
    const never = createJobMachine({ attempts: 3, deadOn: ['LeaseExpiredError'] });
    expect(drive(never, [claim, expire(expired)]).state).toBe('dead');
  });

  it('an expired lease counts as a failed attempt, with the same backoff', () => {
    const e = error({ name: 'LeaseExpired' });
    const { state, context, actions } = drive(machine, [claim, expire(e)]);
    expect(state).toBe('failed');
    expect(context).toEqual({ attempts: 1, lastError: e, retryDelay: 100, retryLaters: 0 });
    expect(scheduled(actions)).toEqual([{ event: RETRY_DUE, delay: 100 }]);
  });

  it('an expired lease on the last attempt goes to dead', () => {
    expect(drive(createJobMachine({ attempts: 1 }), [claim, expire()]).state).toBe('dead');
  });

  it('an expired lease with an unrecoverable error goes to dead', () => {
    expect(drive(machine, [claim, expire(error({ unrecoverable: true }))]).state).toBe('dead');
  });

  it('release returns a running job to pending and refunds its attempt', () => {
    const { state, context } = drive(machine, [claim, release]);
    expect(state).toBe('pending');
    expect(context).toEqual({ attempts: 0, lastError: null, retryDelay: 0, retryLaters: 0 });
  });

  it.each([
    ['pending', [] as Event[]],
    ['processing', [claim]],
    ['failed', [claim, fail()]],
  ])('cancel from %s goes to the finished state cancelled', (from, events) => {
    expect(drive(machine, events).state).toBe(from);
    const { state, actions } = drive(machine, [...events, cancel]);
    expect(state).toBe('cancelled');
    expect(scheduled(actions)).toEqual([]);
  });

  it('cancel is not accepted once dead', () => {
    const dead = drive(machine, [claim, fail(error({ unrecoverable: true }))]);
    const after = transition(machine, dead.snapshot, cancel)[0];
    expect(after).toBe(dead.snapshot);
  });

  it('retry takes a dead job back to pending with a fresh attempt budget, keeping the last error', () => {
    const e = error({ name: 'Boom' });
    const dead = [claim, fail(), due, claim, fail(), due, claim, fail(e)];
    const { state, context } = drive(machine, [...dead, retry]);
    expect(state).toBe('pending');
    expect(context).toEqual({ attempts: 0, lastError: e, retryDelay: 0, retryLaters: 0 });
    expect(drive(machine, [...dead, retry, claim, fail()]).state).toBe('failed');
  });

  it.each([
    ['pending', [] as Event[]],
    ['processing', [claim]],
    ['failed', [claim, fail()]],
  ])('retry is not accepted in %s', (_from, events) => {
    const before = drive(machine, events).snapshot;
    expect(transition(machine, before, retry)[0]).toBe(before);
  });
});

describe('finished states', () => {
  const every = [claim, complete, fail(), expire(), release, cancel, retry, due, promote];

  it.each([
    ['completed', [claim, complete]],
    ['cancelled', [cancel]],
  ])('%s accepts nothing but job.rerun', (name, events) => {
    const finished = drive(machine, events).snapshot;
    expect(FINISHED_STATES).toContain(name);
    for (const event of every) {
      const [next, actions] = transition(machine, finished, event);
      expect(next).toBe(finished);
      expect(actions).toEqual([]);
    }
  });

  it.each([
    ['completed', [claim, fail(), due, claim, complete]],
    ['cancelled', [claim, fail(), cancel]],
  ])('job.rerun takes a %s job back to pending with a fresh set of attempts, scheduling nothing', (_name, events) => {
    const { state, context, actions } = drive(machine, [...events, rerun]);
    expect(state).toBe('pending');
    expect(context.attempts).toBe(0);
    expect(context.retryDelay).toBe(0);
    expect(scheduled(actions)).toEqual([]);
    expect(drive(machine, [...events, rerun, claim]).context.attempts).toBe(1);
  });

  it('job.rerun does not apply to a dead job (job.retry does) nor to unfinished ones', () => {
    for (const events of [[claim, fail(error({ unrecoverable: true }))], [], [claim], [claim, fail()]]) {
      const before = drive(machine, events).snapshot;
      expect(transition(machine, before, rerun)[0]).toBe(before);
    }
  });
});

describe('update', () => {
  it('job.update keeps a pending job pending, its context as it was, and applies nowhere else', () => {
    const before = drive(machine, []);
    const after = drive(machine, [{ type: 'job.update' }]);
    expect([after.state, after.context]).toEqual(['pending', before.context]);
    for (const events of [[claim], [claim, fail()], [claim, complete], [cancel]]) {
      const s0 = drive(machine, events).snapshot;
      expect(transition(machine, s0, { type: 'job.update' })[0]).toBe(s0);
    }
  });
});

describe('promote', () => {
  it.each([
    ['pending', [] as Event[]],
    ['failed', [claim, fail()]],
  ])('job.promote takes a %s job to pending, keeping its attempts and arming no delay', (_from, events) => {
    const before = drive(machine, events);
    const { state, context, actions } = drive(machine, [...events, promote]);
    expect(state).toBe('pending');
    expect(context.attempts).toBe(before.context.attempts);
    expect(scheduled(actions)).toEqual([]);
  });

  it('job.promote takes a sleeping job to pending without spending an attempt', () => {
    const sleeping = [claim, { type: 'job.sleep', delay: 60_000 }];
    expect(drive(machine, sleeping).state).toBe('sleeping');
    const { state, context } = drive(machine, [...sleeping, promote]);
    expect(state).toBe('pending');
    expect(context.attempts).toBe(0);
  });

  it('job.promote does not apply while processing, nor once finished', () => {
    for (const events of [[claim], [claim, complete], [cancel], [claim, fail(error({ unrecoverable: true }))]]) {
      const before = drive(machine, events).snapshot;
      expect(transition(machine, before, promote)[0]).toBe(before);
    }
  });
});

describe('extensions', () => {
  it('take states named like Object.prototype members (constructor, toString) as new states, and refuse base ones and unknown ones', () => {
    const machine = createJobMachine(undefined, {
      on: { pending: { 'job.hold': { target: 'constructor' } } },
      states: { constructor: { on: { 'job.release-hold': { target: 'toString' } } }, toString: { on: { 'job.release-hold': { target: 'pending' } } } },
    } as never);
    expect(Object.keys(machine.config.states ?? {})).toEqual(expect.arrayContaining(['constructor', 'toString', 'pending']));
    expect(() => createJobMachine(undefined, { states: { dead: {} } } as never)).toThrow('extension.states redefines base state "dead"');
    expect(() => createJobMachine(undefined, { on: { hasOwnProperty: {} } } as never)).toThrow('extension.on names unknown base state "hasOwnProperty"');
  });
});
