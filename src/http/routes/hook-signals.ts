/**
 * A hook whose body is a message for a job (`signal` in its settings): a
 * payment provider's webhook reaching the order job that waits for it
 * (`ctx.waitFor('paid')`). The job is the one enqueued with the idempotency
 * key `keyPrefix` + the body's field at `jobKey` (a dotted path:
 * `data.object.metadata.order_id`); the message is the body, on `topic`. The
 * hook's delivery id (its `keyHeader`, `Idempotency-Key`, or the signed
 * `webhook-id`) is the message's key: a provider's retry is not a second
 * message. Signed and checked as any hook is, before anything is read.
 */
import type { Queue } from '../../queue.js';
import type { SignalResult } from '../../engine/actions/job-messages.js';
import { checkTopic } from '../../engine/run/durable-steps.js';
import { HttpError } from '../errors.js';

export interface HookSignal {
  /** The topic the job waits on. */
  topic: string;
  /** Where the job's key is in the body: a dotted path of field names (`data.object.metadata.order_id`). */
  jobKey: string;
  /** Put before the field's value to make the job's key (`order:`). Default none. */
  keyPrefix?: string;
  /** Enqueue the hook's job as well, as without `signal`. Default false: the message only. */
  enqueue?: boolean;
}

const SIGNAL_KEYS = ['topic', 'jobKey', 'keyPrefix', 'enqueue'];
const PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Checks a hook's `signal` setting at registration (a TypeError naming it). */
export function checkHookSignal(where: string, signal: unknown): void {
  if (typeof signal !== 'object' || signal === null || Array.isArray(signal)) throw new TypeError(`${where} must be { topic, jobKey, keyPrefix?, enqueue? }`);
  for (const key of Object.keys(signal)) if (!SIGNAL_KEYS.includes(key)) throw new TypeError(`${where}: unknown option "${key}" (allowed: ${SIGNAL_KEYS.join(', ')})`);
  const s = signal as Partial<HookSignal>;
  try {
    checkTopic(`${where}.topic`, s.topic);
  } catch (err) {
    throw new TypeError((err as Error).message);
  }
  if (typeof s.jobKey !== 'string' || !PATH.test(s.jobKey) || s.jobKey.length > 200) throw new TypeError(`${where}.jobKey must be a dotted path of field names, such as data.object.metadata.order_id`);
  if (s.keyPrefix !== undefined && (typeof s.keyPrefix !== 'string' || s.keyPrefix.length > 200)) throw new TypeError(`${where}.keyPrefix must be a string of at most 200 characters`);
  if (s.enqueue !== undefined && typeof s.enqueue !== 'boolean') throw new TypeError(`${where}.enqueue must be a boolean`);
}

/** The body's field at a dotted path, as a job key: a string, or a whole number written as one. */
function keyAt(body: unknown, path: string): string {
  let value = body;
  for (const field of path.split('.')) {
    value = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, field) ? (value as Record<string, unknown>)[field] : undefined;
  }
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  throw new HttpError(400, 'LJ_ERR_VALIDATION', `the hook body has no job key at ${path} (a non-empty string or a whole number)`);
}

/** Sends the hook's body to its job: 404 when no job holds the key, 409 when it has finished. */
export function signalFromHook(queue: Queue, signal: HookSignal, body: unknown, delivery: string | undefined): Promise<SignalResult> {
  const key = `${signal.keyPrefix ?? ''}${keyAt(body, signal.jobKey)}`;
  return queue.signal({ key }, signal.topic, body, delivery === undefined ? undefined : { key: delivery });
}
