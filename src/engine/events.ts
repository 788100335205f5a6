/** What `queue.events$` emits: one event per transition this process made. */
import type { ErrorInfo } from '../../machines/policy.js';

export interface QueueEvent {
  /** `job:<state entered>`: `job:pending`, `job:processing`, `job:completed`, `job:failed`, `job:dead`, `job:cancelled`, … */
  type: `job:${string}`;
  job: { id: number; name: string };
  /** The state left (`null` when the job was created). */
  from: string | null;
  /** The state entered. */
  to: string;
  /** The machine event that caused it (`job.claim`, `job.fail`, …). */
  event: string;
  at: Date;
  /** Attempts spent when the transition happened. */
  attempts: number;
  workerId?: string;
  error?: ErrorInfo;
  /** When the new state is left on its own (a retry's due time). */
  runAt?: Date;
}

export function queueEvent(
  job: { id: number; name: string },
  from: string | null,
  to: string,
  event: string,
  at: number,
  attempts: number,
  extra?: { workerId?: string; error?: ErrorInfo | null; runAt?: number },
): QueueEvent {
  const e: QueueEvent = { type: `job:${to}`, job, from, to, event, at: new Date(at), attempts };
  if (extra?.workerId) e.workerId = extra.workerId;
  if (extra?.error) e.error = extra.error;
  if (extra?.runAt !== undefined) e.runAt = new Date(extra.runAt);
  return e;
}
