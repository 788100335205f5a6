/**
 * One compiled job machine per (job name, retry override), built once and
 * cached. Also maps a row's columns to the machine's context and back.
 */
import type { AnyStateMachine } from 'xstate';
import { compileMachine, MachineCompileError, type CompiledMachine } from '../../../machines/compile.js';
import { createJobMachine, FINISHED_STATES, JobEventType, JobState, type JobEvent, type JobMachineContext } from '../../../machines/job.machine.js';
import type { ErrorInfo, RetryPolicy } from '../../../machines/policy.js';
import type { AnyJobDefinition as JobDefinition } from './job-definition.js';
import { LitejobsError } from '../../errors.js';
import type { ClaimRule, FlowRule } from '../../store/store.js';

export type CompiledJobMachine = CompiledMachine<JobMachineContext>;

export interface MachineRegistry {
  /** The machine that decides transitions for a job of this name and stored retry override. */
  forJob(name: string, retry: Record<string, unknown> | null): CompiledJobMachine;
  /** States, across every defined job, that the machine leaves on its own after a delay. */
  readonly delayedStates: readonly string[];
  /** What a claim writes, read off the machines' claim edge (the same for every machine the queue accepts). */
  readonly claimRule: ClaimRule;
  /** How a flow's parent leaves its waiting state, read off the machines' `job.children` edges. */
  readonly flowRule: FlowRule;
}

/** Rebuilds the machine context from a row's columns. */
export function toContext(attempts: number, lastError: ErrorInfo | null, ctx: Record<string, unknown> | null): JobMachineContext {
  return { retryDelay: 0, retryLaters: 0, ...(ctx ?? {}), attempts, lastError };
}

/** Splits a machine context into the row's columns (`ctx` keeps what has no column; null when default). */
export function fromContext(context: JobMachineContext): { attempts: number; lastError: ErrorInfo | null; ctx: Record<string, unknown> | null } {
  let ctx: Record<string, unknown> | null = null;
  for (const key of Object.keys(context)) {
    if (key === 'attempts' || key === 'lastError') continue;
    // Defaults stay out of the row: a fresh job's ctx column is NULL.
    if (context[key] === undefined || ((key === 'retryDelay' || key === 'retryLaters') && context[key] === 0)) continue;
    ctx ??= {};
    ctx[key] = context[key];
  }
  return { attempts: context.attempts, lastError: context.lastError, ctx };
}

/** The claim edge of a machine: from its initial state, on `job.claim`. */
export function claimRuleOf(m: CompiledJobMachine): ClaimRule {
  const step = m.next(m.initial.state, m.initial.context, { type: JobEventType.claim });
  if (!step) throw new LitejobsError('LJ_ERR_MACHINE', `machine ${m.id}: "${JobEventType.claim}" does not leave the initial state`);
  return { from: m.initial.state, to: step.state, attempts: step.context.attempts - m.initial.context.attempts, event: JobEventType.claim };
}

/** The `job.children` edges of a machine, from `waiting-children`: where a parent goes when its children are done, or one failed. */
export function flowRuleOf(m: CompiledJobMachine): FlowRule {
  const from = JobState.waitingChildren;
  const context = { ...m.initial.context };
  const allDone: JobEvent = { type: JobEventType.children, failed: false };
  const oneFailed: JobEvent = { type: JobEventType.children, failed: true, error: { name: 'ChildFailedError', message: 'check' } };
  const done = m.next(from, context, allDone);
  const failed = m.next(from, context, oneFailed);
  if (!done || !failed || done.state === from || failed.state === from) {
    throw new LitejobsError('LJ_ERR_MACHINE', `machine ${m.id}: "${JobEventType.children}" must take "${from}" elsewhere`);
  }
  return {
    from,
    event: JobEventType.children,
    done: done.state,
    failed: failed.state,
    finished: FINISHED_STATES,
    failures: FINISHED_STATES.filter((s) => s !== JobState.completed),
  };
}

/**
 * The queue relies on a few edges of every job machine (the claim is one SQL
 * statement; workers always fail, expire or release what they hold). Refuse a
 * machine that lacks them, at start-up rather than on the first job.
 */
export function assertQueueCompatible(name: string, m: CompiledJobMachine): void {
  const fail = (why: string) => {
    throw new LitejobsError('LJ_ERR_MACHINE', `job "${name}": machine ${m.id}: ${why}`);
  };
  if (m.initial.state !== JobState.pending) fail(`initial state must be "pending", not "${m.initial.state}"`);
  for (const attempts of [0, 3]) {
    const before = { ...m.initial.context, attempts };
    const step = m.next(JobState.pending, before, { type: JobEventType.claim });
    if (!step || step.state !== JobState.processing) fail(`"${JobEventType.claim}" must take pending to processing unconditionally`);
    const { attempts: after, ...rest } = step!.context;
    const { attempts: _a, ...restBefore } = before;
    if (after !== attempts + 1 || JSON.stringify(rest) !== JSON.stringify(restBefore) || step!.delayed) {
      fail(`"${JobEventType.claim}" may only add one to attempts`);
    }
  }
  const running = { ...m.initial.context, attempts: 1 };
  const error = { name: 'Error', message: 'check' };
  const probes: JobEvent[] = [
    { type: JobEventType.complete },
    { type: JobEventType.fail, error, random: 0 },
    { type: JobEventType.expire, error, random: 0 },
    { type: JobEventType.release },
  ];
  for (const event of probes) {
    const step = m.next(JobState.processing, running, event);
    if (!step || step.state === JobState.processing) fail(`processing must leave on "${event.type}"`);
  }
}

/** Machines compiled for per-job retry policies, kept at most (the oldest used go first): a policy is any JSON a caller sends. */
const POLICY_MACHINES = 256;

export function createMachineRegistry(definitions: ReadonlyMap<string, JobDefinition>): MachineRegistry {
  const cache = new Map<string, CompiledJobMachine>();

  const build = (def: JobDefinition | undefined, override: RetryPolicy | undefined): AnyStateMachine => {
    const policy = def?.retry || override ? { ...(def?.retry ?? {}), ...(override ?? {}) } : undefined;
    if (!def?.machine) return createJobMachine(policy);
    if (typeof def.machine === 'function') return def.machine(policy);
    return def.machine; // a ready machine carries its own policy
  };

  const forJob = (name: string, retry: Record<string, unknown> | null): CompiledJobMachine => {
    const def = definitions.get(name);
    // A name no definition has runs the base machine: one entry for all of them (names are any text a caller
    // enqueues under, and each compiled machine takes tens of KB). A per-job policy is one entry per policy, bounded.
    const owner = def === undefined ? '\u0000base' : name;
    const perJob = retry && !(def?.machine && typeof def.machine !== 'function');
    const key = perJob ? `${owner}\u0000${JSON.stringify(retry)}` : owner;
    let compiled = cache.get(key);
    if (compiled && perJob) {
      // Used now: to the end of the line the oldest are dropped from.
      cache.delete(key);
      cache.set(key, compiled);
    }
    if (!compiled) {
      try {
        compiled = compileMachine<JobMachineContext>(build(def, (retry ?? undefined) as RetryPolicy | undefined));
      } catch (err) {
        // Name the job: a machine error alone does not say which definition it came from.
        if (err instanceof LitejobsError && err.code !== 'LJ_ERR_MACHINE') throw err;
        throw new MachineCompileError(`job "${name}": ${(err as Error).message}`, { cause: err });
      }
      assertQueueCompatible(name, compiled);
      cache.set(key, compiled);
      if (perJob && cache.size > definitions.size + 1 + POLICY_MACHINES) {
        for (const k of cache.keys()) {
          if (k.includes('\u0000') && k !== '\u0000base') {
            cache.delete(k);
            break;
          }
        }
      }
    }
    return compiled;
  };

  // Compile every definition now: a bad machine fails createQueue, not a job.
  const delayed = new Set<string>();
  for (const name of definitions.keys()) for (const s of forJob(name, null).delayedStates) delayed.add(s);
  // Every accepted machine claims the same way (assertQueueCompatible): read it off the base machine.
  const base = compileMachine<JobMachineContext>(createJobMachine());
  const claimRule = claimRuleOf(base);
  // Flows follow the base machine's edges (a parent may be a name this process only enqueues).
  const flowRule = flowRuleOf(base);
  return { forJob, delayedStates: [...delayed], claimRule, flowRule };
}

