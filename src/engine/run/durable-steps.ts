/**
 * Durable steps: `ctx.step(name, fn)` and `ctx.sleep(name, duration)`. Each
 * completed step is stored with the job (job_steps); a later attempt of the
 * same job, after a failure or a crash, gets the stored result back without
 * calling `fn`, and so goes on at the first step that did not complete.
 *
 * A run reads the job's stored steps once, on its first step or sleep. Names
 * identify steps across runs, so one name used twice in a run is refused
 * (DuplicateStepError): a replay could not tell the two apart.
 *
 * A sleep is a step too. The first time, it is recorded with its wake time
 * and the run stops: `sleep` records the request here and throws a
 * SleepSignal, and the executor, once the handler has settled (whatever it
 * did with the signal), moves the job to `sleeping` through the machine's
 * `job.sleep` edge. On a later run the recorded sleep returns at once when
 * its wake time has passed, or parks the job again for the rest.
 *
 * A wait for a message (ctx.waitFor) is a step too, named by its topic and
 * its count on that topic in the run (`waitFor:paid#1`). It takes the oldest
 * message on its topic from the job's mailbox in the transaction that
 * records the step with it, so a replay gets the same message back and no
 * message is taken twice. With none waiting, it records its deadline (a
 * step `waitFor:paid#1@`, like a sleep's wake time) and throws a WaitSignal:
 * the executor parks the job in `waiting-message` through `job.wait`. A
 * message (queue.signal) or the deadline wakes it; the run after a deadline
 * that finds no message records the wait as timed out and gets null.
 */
import { DuplicateStepError, LeaseLostError, LitejobsError, ValidationError } from '../../errors.js';
import { MAX_DATE_MS, parseDuration, type Duration } from '../../lib/duration.js';
import { checkRunTime } from '../core/options.js';
import { checkString } from '../../lib/validate.js';
import type { LeasedJob, StepRecord, WaitStep } from '../../store/store.js';
import type { AttemptSpan } from '../../telemetry/tracing.js';

/** The longest step name. */
export const MAX_STEP_NAME = 200;

/** What the steps of a run need from the executor (one object for every run). */
export interface StepHost {
  steps(job: LeasedJob): Promise<StepRecord[]>;
  /** False when the lease is gone (nothing written). */
  saveStep(job: LeasedJob, step: Omit<StepRecord, 'seq'>): Promise<boolean>;
  now(): number;
  /** Whether the job's machine takes `job.sleep` from the job's state. */
  canSleep(job: LeasedJob): boolean;
  /** Whether the job's machine takes `job.wait` from the job's state. */
  canWait(job: LeasedJob): boolean;
  /** Takes the oldest message on the topic from the job's mailbox, recorded as step `name`, or the step recorded before (Store.takeMessage). */
  takeMessage(job: LeasedJob, topic: string, name: string): Promise<WaitStep | null | false>;
}

/**
 * Thrown by `ctx.sleep` to stop the handler; not an error of the job. The
 * executor reads the request from the run (StepRun.sleepRequest), not from
 * what the handler threw, so a handler that catches it still parks.
 */
export class SleepSignal extends LitejobsError {
  constructor(readonly step: string, readonly delay: number) {
    super('LJ_ERR_VALIDATION', `ctx.sleep("${step}") parks the job for ${delay} ms: let this error propagate`);
  }
}

/** The longest topic of ctx.waitFor and queue.signal. */
export const MAX_TOPIC = 150;
/** Step names the queue gives its waits: refused as a ctx.step or ctx.sleep name. */
export const WAIT_STEP_PREFIX = 'waitFor:';

/** Thrown by `ctx.waitFor` to stop the handler while it waits for a message; not an error of the job. */
export class WaitSignal extends LitejobsError {
  constructor(readonly topic: string, readonly step: string, readonly delay: number) {
    super('LJ_ERR_VALIDATION', `ctx.waitFor("${topic}") parks the job until a message comes: let this error propagate`);
  }
}

/** Checks a message topic (ctx.waitFor, queue.signal). */
export function checkTopic(what: string, topic: unknown): string {
  return checkString(`${what} topic`, topic, MAX_TOPIC);
}

export class StepRun {
  /** The job's stored steps by name, read on the first step or sleep. */
  private stored: Promise<Map<string, StepRecord>> | undefined;
  private readonly used = new Set<string>();
  /** Set once a sleep parks the job: the executor applies it after the handler settled. */
  sleepRequest: SleepSignal | undefined;
  /** Set once a wait for a message parks the job: likewise. */
  waitRequest: WaitSignal | undefined;
  /** ctx.waitFor calls so far in this run, per topic: each names its step. */
  private readonly waits = new Map<string, number>();
  /** A ctx.waitFor of this run has not returned yet. */
  private waiting = false;

  constructor(
    private readonly job: LeasedJob,
    private readonly host: StepHost,
    /** The attempt's span when traced: a step runs in a child span, a replayed step or a sleep is an event. */
    private readonly span?: AttemptSpan,
  ) {}

  async step<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    this.ownName('ctx.step', name);
    this.begin('ctx.step', name);
    if (typeof fn !== 'function') throw new ValidationError(`ctx.step("${name}"): the step must be a function`);
    const done = (await this.load()).get(name);
    if (done) {
      if (done.wakeAt !== null) throw new ValidationError(`ctx.step("${name}"): "${name}" was recorded as a sleep; steps and sleeps need names of their own`);
      this.span?.event('litejobs.step.replayed', { 'litejobs.step.name': name, 'litejobs.step.attempt': done.attempt });
      return parse(done.result) as T;
    }
    const value = this.span ? await this.span.step(name, async () => fn()) : await fn();
    const result = serializeStep(name, value);
    await this.save({ name, result, wakeAt: null });
    // What a replay will return, so the first run sees the same (a Date comes back as its string).
    return parse(result) as T;
  }

  async sleep(name: string, duration: Duration): Promise<void> {
    this.ownName('ctx.sleep', name);
    this.begin('ctx.sleep', name);
    const ms = parseDuration(`ctx.sleep("${name}") duration`, duration);
    const done = (await this.load()).get(name);
    if (done && done.wakeAt === null) throw new ValidationError(`ctx.sleep("${name}"): "${name}" was recorded as a step; steps and sleeps need names of their own`);
    const recorded = done?.wakeAt ?? null;
    // A wake time by enqueue's rule (core/options.ts): one a Date holds, so the sleeping job reads back as one.
    const wakeAt = recorded ?? checkRunTime(`ctx.sleep("${name}")`, undefined, ms, this.host.now())!;
    // Before anything is stored: a job that cannot park fails with nothing recorded.
    if (wakeAt > this.host.now()) this.assertCanSleep(name);
    if (recorded === null) await this.save({ name, result: null, wakeAt });
    this.span?.event('litejobs.sleep', { 'litejobs.step.name': name, 'litejobs.sleep.wake_at': new Date(wakeAt).toISOString() });
    const left = wakeAt - this.host.now();
    if (left <= 0) return;
    this.sleepRequest = new SleepSignal(name, left);
    throw this.sleepRequest;
  }

  async waitFor(topic: string, options?: { timeout?: Duration }): Promise<unknown> {
    const what = `ctx.waitFor("${typeof topic === 'string' ? topic.slice(0, MAX_TOPIC) : topic}")`;
    checkTopic('ctx.waitFor', topic);
    if (options !== undefined && (typeof options !== 'object' || options === null || Object.keys(options).some((k) => k !== 'timeout'))) {
      throw new ValidationError(`${what}: options take only { timeout }`);
    }
    const ms = options?.timeout === undefined ? undefined : parseDuration(`${what} timeout`, options.timeout);
    // One wait at a time: a job parks on one topic (a race of two waits would park on the second and miss the first's message).
    if (this.waiting) throw new ValidationError(`${what}: another ctx.waitFor of this run has not returned; wait for one topic at a time (send the choices on one topic)`);
    const n = (this.waits.get(topic) ?? 0) + 1;
    this.waits.set(topic, n);
    const name = `${WAIT_STEP_PREFIX}${topic}#${n}`;
    this.begin('ctx.waitFor', name);
    this.waiting = true;
    try {
      return await this.wait(topic, name, what, ms);
    } finally {
      this.waiting = false;
    }
  }

  private async wait(topic: string, name: string, what: string, ms: number | undefined): Promise<unknown> {
    // The run's steps are read only when a step needs them, or to park: a wait that is the handler's first
    // step (a job woken by its message) is answered by the take alone, one round trip.
    const outcome = this.stored === undefined ? undefined : (await this.stored).get(name);
    const taken = outcome !== undefined ? { result: outcome.result, replayed: outcome.attempt } : await this.host.takeMessage(this.job, topic, name);
    if (taken === false) throw new LeaseLostError(this.job.id);
    if (taken !== null) {
      if (taken.replayed !== null) this.span?.event('litejobs.step.replayed', { 'litejobs.step.name': name, 'litejobs.step.attempt': taken.replayed });
      else this.span?.event('litejobs.message', { 'litejobs.step.name': name });
      return waitOutcome(taken.result);
    }
    const stored = await this.load();
    const until = stored.get(`${name}@`);
    const now = this.host.now();
    // No timeout: the last instant a Date holds, so the waiting job reads back as one.
    const deadline = until?.wakeAt ?? (ms === undefined ? MAX_DATE_MS : checkRunTime(what, undefined, ms, now)!);
    if (deadline <= now) {
      // Timed out: recorded, so a replay gets null too. A message sent since stays for the next wait.
      await this.save({ name, result: TIMED_OUT, wakeAt: null });
      return null;
    }
    // Before anything is stored: a job that cannot park fails with nothing recorded.
    if (!this.host.canWait(this.job)) {
      throw new ValidationError(`${what}: the machine of job "${this.job.name}" has no "job.wait" edge from "${this.job.state}", so it cannot wait`);
    }
    if (!until) await this.save({ name: `${name}@`, result: null, wakeAt: deadline });
    this.span?.event('litejobs.wait', { 'litejobs.step.name': name, ...(ms === undefined ? {} : { 'litejobs.wait.until': new Date(deadline).toISOString() }) });
    this.waitRequest = new WaitSignal(topic, name, deadline - now);
    throw this.waitRequest;
  }

  /** A step's or sleep's name may not be one the queue gives its waits. */
  private ownName(what: string, name: string): void {
    if (typeof name === 'string' && name.startsWith(WAIT_STEP_PREFIX)) throw new ValidationError(`${what}: names starting with "${WAIT_STEP_PREFIX}" are ctx.waitFor's own`);
  }

  /** Checks the name and claims it for this run; a run that is parking takes no more steps. */
  private begin(what: string, name: string): void {
    if (this.sleepRequest) throw this.sleepRequest;
    if (this.waitRequest) throw this.waitRequest;
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_STEP_NAME) {
      throw new ValidationError(`${what}: the step name must be a non-empty string of at most ${MAX_STEP_NAME} characters`);
    }
    if (this.used.has(name)) throw new DuplicateStepError(name);
    this.used.add(name);
  }

  private load(): Promise<Map<string, StepRecord>> {
    this.stored ??= this.host.steps(this.job).then((steps) => new Map(steps.map((s) => [s.name, s])));
    return this.stored;
  }

  private async save(step: { name: string; result: string | null; wakeAt: number | null }): Promise<void> {
    const ok = await this.host.saveStep(this.job, { ...step, attempt: this.job.attempts, at: this.host.now() });
    if (!ok) throw new LeaseLostError(this.job.id);
  }

  private assertCanSleep(name: string): void {
    if (!this.host.canSleep(this.job)) {
      throw new ValidationError(`ctx.sleep("${name}"): the machine of job "${this.job.name}" has no "job.sleep" edge from "${this.job.state}", so it cannot park`);
    }
  }
}

/** JSON text of a step's result (null for undefined); a value JSON cannot hold fails the step before anything is stored. */
function serializeStep(name: string, value: unknown): string | null {
  if (value === undefined) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new ValidationError(`ctx.step("${name}"): the result is not JSON-serialisable: ${(err as Error).message}`, 'LJ_ERR_PAYLOAD_NOT_JSON', { cause: err });
  }
  if (text === undefined) throw new ValidationError(`ctx.step("${name}"): the result is not JSON-serialisable (a ${typeof value})`, 'LJ_ERR_PAYLOAD_NOT_JSON');
  return text;
}

const parse = (text: string | null): unknown => (text === null ? undefined : JSON.parse(text));

/** A wait step's result when its deadline passed with no message. */
const TIMED_OUT = '{"timedOut":true}';

/** What a recorded wait gives back: its message, or null when it timed out. */
function waitOutcome(result: string | null): unknown {
  const recorded = parse(result) as { message?: unknown } | undefined;
  return recorded !== undefined && 'message' in recorded ? recorded.message : null;
}
