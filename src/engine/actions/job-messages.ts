/**
 * `queue.signal`: a message for a job's mailbox, by id or by the job's
 * idempotency key. It is stored first (after the messages on its topic sent
 * before it), then the job is woken if it waits on that topic; a job running
 * now finds it with its next `ctx.waitFor`, or is woken when it parks (the
 * executor looks for a message once its park committed: wake-waiting.ts).
 */
import { FINISHED_STATES } from '../../../machines/job.machine.js';
import { JobFinishedError, JobNotFoundError, ValidationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { checkInteger, checkKey, checkString, rejectUnknownOptions, serializePayload } from '../../lib/validate.js';
import type { JobRecord, Store } from '../../store/store.js';
import { MAILBOX_MAX } from '../../store/contract/run-data.js';
import type { MachineRegistry } from '../core/machine-registry.js';
import { checkTopic } from '../run/durable-steps.js';

/** Whom a message is for: a job's id, or the idempotency key it was enqueued with. */
export type SignalTarget = number | { key: string };

/** What `queue.signal` did: the job's id, and whether this message woke it (false: it waits in the job's mailbox). */
export interface SignalResult {
  id: number;
  woke: boolean;
  /** A message was sent to the job under this `key` before (taken or not): this one was not sent again. */
  duplicate?: true;
}

export interface SignalOptions {
  /** An idempotency key (a provider's delivery id): a message sent to the job under it before is not sent again. */
  key?: string;
}

export interface SignalDeps {
  store: Pick<Store, 'get' | 'sendMessage' | 'jobIdByKey'>;
  clock: Clock;
  registry: MachineRegistry;
  wakeWaiting: (id: number, topic: string, sent?: JobRecord) => Promise<boolean>;
  maxPayloadBytes: number;
  open: () => void;
}

export type Signal = (target: SignalTarget, topic: string, data?: unknown, options?: SignalOptions) => Promise<SignalResult>;

export function createSignal(deps: SignalDeps): Signal {
  const { store, registry } = deps;

  const jobIdOf = async (target: SignalTarget): Promise<number> => {
    if (typeof target === 'number') return checkInteger('signal id', target, 1);
    if (typeof target !== 'object' || target === null || Object.keys(target).some((k) => k !== 'key')) {
      throw new ValidationError('signal: the target is a job id or { key }');
    }
    const key = checkString('signal key', target.key, 1024);
    const id = await store.jobIdByKey(key);
    if (id === null) throw new JobNotFoundError(0, `signal: no job holds the key "${key.slice(0, 200)}"`);
    return id;
  };

  return async (target, topic, data, options) => {
    deps.open();
    checkTopic('signal', topic);
    if (options !== undefined) rejectUnknownOptions('signal options', options, ['key']);
    const key = options?.key === undefined ? null : checkKey('signal key', options.key, 1024);
    // A wait that times out gets null: a message of null would read as one. No data is an empty message.
    if (data === null) throw new ValidationError('signal: a message of null reads as a wait\'s timeout; send a value (an empty object when there is nothing more to say)');
    const text = serializePayload(data === undefined ? {} : data, deps.maxPayloadBytes);
    const id = await jobIdOf(target);
    const job = await store.get(id);
    if (!job) throw new JobNotFoundError(id);
    // Its machine's final states too: a custom machine may end elsewhere.
    const refused = [...new Set([...FINISHED_STATES, ...registry.forJob(job.name, job.retry).finalStates])];
    const sent = await store.sendMessage({ id, topic, data: text, key, at: deps.clock.now(), refused });
    if (sent === 'not-found') throw new JobNotFoundError(id);
    if (sent === 'refused') throw new JobFinishedError(id, (await store.get(id))?.state ?? job.state);
    if (sent === 'full') throw new ValidationError(`signal: job ${id}'s mailbox holds ${MAILBOX_MAX} messages it has not taken: no more until it takes some`, 'LJ_ERR_MAILBOX_FULL');
    // A duplicate still looks (the first sending may have been cut short before its wake), but only at a message
    // still in the mailbox: the read before sending stands for one only when this call stored it.
    const woke = await deps.wakeWaiting(id, topic, sent === 'sent' ? job : undefined);
    return sent === 'duplicate' ? { id, woke, duplicate: true } : { id, woke };
  };
}
