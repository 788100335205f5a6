/** The public shape of a job, its history and its steps, as `getJob`, `listJobs`, `history` and `steps` return them. */
import type { ErrorInfo } from '../../../machines/policy.js';
import type { HistoryEntry, JobRecord, StepRecord } from '../../store/store.js';
import { eventName } from '../../../machines/event-name.js';
import { slotOf } from './cron.js';
import { shownRunAt } from './lifo.js';
import { storedJson } from '../../lib/stored-json.js';

export interface Job<P = unknown, R = unknown> {
  id: number;
  name: string;
  state: string;
  payload: P;
  attempts: number;
  priority: number;
  key: string | null;
  /** When the job is due (for `failed`: when it is retried). */
  runAt: Date;
  /** Enqueued with `lifo: true`, still waiting for its first claim in that place in line. */
  lifo?: true;
  /** A schedule's job: the cron slot it was made for. Unlike `runAt`, it stays the same on every attempt. */
  slot?: Date;
  result?: R;
  lastError?: ErrorInfo;
  /** The latest `ctx.progress()`: a number (0 to 100 reads as a percentage), or any JSON value. */
  progress?: unknown;
  /** The values it published (`ctx.publish`), the latest per key; absent when none. */
  published?: Record<string, unknown>;
  /** In `waiting-message`: the topic its `ctx.waitFor` waits on. */
  waitingFor?: string;
  /** Who holds the job's lease (`host:pid:random`), while it has one. */
  leaseOwner?: string;
  /** When that lease runs out unless renewed. */
  lockedUntil?: Date;
  /** The `unique`, `debounce` or `throttle` key the job holds now; absent once it gave the key back. */
  heldKey?: { kind: 'unique' | 'debounce' | 'throttle'; key: string };
  /** The concurrency group it was enqueued in. */
  group?: string;
  /** The flow parent that waits for this job (enqueueFlow, enqueueBatch). */
  parentId?: number;
  /** A flow parent: its children not finished yet, those that ended dead or cancelled, and its policy. */
  children?: { left: number; failed: number; onChildFailure: 'fail' | 'continue' };
  createdAt: Date;
  updatedAt: Date;
}

export interface Transition {
  from: string | null;
  to: string;
  /** The event as shown (machines/event-name.ts): `job.fail`, `after retryDelay` (a delayed edge). */
  event: string;
  /**
   * When the event has several guarded candidates leading to `to` and a later
   * one was taken: its place among them (2, 3, …), as `machineGraph` numbers
   * its edge (`from:event:to#2`). Absent for the first or only one.
   */
  candidate?: number;
  at: Date;
  workerId?: string;
  error?: ErrorInfo;
}

export function toJob(r: JobRecord): Job {
  const job: Job = {
    id: r.id,
    name: r.name,
    state: r.state,
    payload: storedJson(r.payload),
    attempts: r.attempts,
    priority: r.priority,
    key: r.key,
    runAt: new Date(shownRunAt(r.runAt, r.createdAt)),
    createdAt: new Date(r.createdAt),
    updatedAt: new Date(r.updatedAt),
  };
  const slot = slotOf(r.key);
  if (slot !== null) job.slot = new Date(slot);
  if (r.runAt < 0 && r.state === 'pending') job.lifo = true;
  if (r.result !== null) job.result = storedJson(r.result);
  if (r.lastError) job.lastError = r.lastError;
  if (r.progress !== null) job.progress = storedJson(r.progress);
  if (r.state === 'waiting-message' && typeof r.ctx?.waitTopic === 'string') job.waitingFor = r.ctx.waitTopic;
  if (r.leaseOwner !== null) job.leaseOwner = r.leaseOwner;
  if (r.lockedUntil !== null) job.lockedUntil = new Date(r.lockedUntil);
  if (r.heldKey) job.heldKey = r.heldKey;
  if (r.group) job.group = r.group;
  if (r.parentId != null) job.parentId = r.parentId;
  if (r.flow) job.children = { ...r.flow };
  return job;
}

export function toTransition(h: HistoryEntry): Transition {
  const t: Transition = { from: h.from, to: h.to, event: eventName(h.event, h.from), at: new Date(h.at) };
  if (h.candidate !== undefined) t.candidate = h.candidate;
  if (h.workerId !== undefined) t.workerId = h.workerId;
  if (h.error !== undefined) t.error = h.error;
  return t;
}

/** A completed durable step (`ctx.step`) or sleep (`ctx.sleep`) of a job. */
export interface StepView {
  name: string;
  /** 1 for the job's first completed step, 2 for the next, … */
  seq: number;
  /** The step's result as stored (JSON); undefined for a sleep or a step that returned nothing. */
  result: unknown;
  /** A sleep: when it ends; null for a step. */
  wakeAt: Date | null;
  /** The attempt that completed it. */
  attempt: number;
  at: Date;
}

export function toStepView(s: StepRecord): StepView {
  return {
    name: s.name,
    seq: s.seq,
    result: s.result === null ? undefined : storedJson(s.result),
    wakeAt: s.wakeAt === null ? null : new Date(s.wakeAt),
    attempt: s.attempt,
    at: new Date(s.at),
  };
}
