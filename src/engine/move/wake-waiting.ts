/**
 * Wakes a job that waits for a message (`waiting-message`) once its mailbox
 * holds one on the topic it waits on: the machine's `job.message` edge, a
 * compare-and-set on the version read.
 *
 * Both ends call it, so that no message is left unseen by a parked job: a
 * signal after its message is in the mailbox, the executor after its park
 * committed. Whichever of the two commits last sees the other's write (the
 * message, or the job parked on the topic).
 */
import { JobEventType, JobState } from '../../../machines/job.machine.js';
import type { JobRecord, Store } from '../../store/store.js';
import type { ApplyEvent } from '../core/moves.js';

/** Fresh reads after a wake that missed (each follows another writer's commit). */
const AGAIN_AT_MOST = 4;

/**
 * `sent`: the job as read just before this caller stored a message on the
 * topic: when it waited on the topic then, the wake is tried on that read at
 * once (its compare-and-set fails if the job moved since), with no read of the
 * job or the mailbox first (the message is there: a waiting job takes none).
 */
export type WakeWaiting = (id: number, topic: string, sent?: JobRecord) => Promise<boolean>;

export function createWakeWaiting(deps: { store: Pick<Store, 'get' | 'hasMessage'>; apply: ApplyEvent }): WakeWaiting {
  const waitsOn = (job: JobRecord | undefined, topic: string): job is JobRecord => job?.state === JobState.waitingMessage && job.ctx?.waitTopic === topic;
  return async (id, topic, sent) => {
    if (sent !== undefined && waitsOn(sent, topic)) {
      const r = await deps.apply(sent, { type: JobEventType.message });
      if (r.accepted && r.committed) return true;
    }
    for (let tries = 0; tries < AGAIN_AT_MOST; tries++) {
      const job = await deps.store.get(id);
      if (!waitsOn(job, topic) || !(await deps.store.hasMessage(id, topic))) return false;
      const r = await deps.apply(job, { type: JobEventType.message });
      if (r.accepted && r.committed) return true;
      if (!r.accepted) return false;
    }
    return false;
  };
}
