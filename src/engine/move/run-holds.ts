/**
 * A run holds its job from its handler's start to its return, in whichever
 * process, whatever the row says meanwhile. A move not made by the run
 * itself (a cancel, an operator's or a custom event) leaves the run's lease
 * on the job as a hold (store/sql/transition-set.sql): no claim takes the
 * job while the hold lasts, and a unique key of span 'active' or longer
 * stays with it. The run renews the hold with its lease and gives it back
 * when its handler has returned; a claimed job dropped before its start
 * gives it back at once. A run that died holding a job leaves the hold to
 * run out: claims then take the job again (and the lease sweep gives stale
 * holds back, keys and all).
 *
 * Giving a hold back reads the job, then compares on its version: the key
 * the job keeps depends on the state it is in, which may move meanwhile.
 */
import type { JobRecord, Store } from '../../store/store.js';
import type { Clock } from '../../lib/clock.js';
import type { MachineRegistry } from '../core/machine-registry.js';
import type { ReleaseHold } from '../core/moves.js';
import { uniqueNeed } from '../core/unique.js';
import type { SharedTime } from '../core/shared-time.js';

/** Fresh reads after a give-back that missed (each miss follows another writer's commit). */
const AGAIN_AT_MOST = 8;

export interface HoldReleaseDeps {
  store: Pick<Store, 'get' | 'releaseHold' | 'removeJobs'>;
  registry: MachineRegistry;
  clock: Clock;
  /** The database's clock: a job whose throttle window is still open on it stays (RemoveTarget `throttleAt`). */
  time: Pick<SharedTime, 'now'>;
  /** True when a job of this name in this state is deleted once nothing holds it (retention 0). */
  deletesAtOnce(name: string, state: string): boolean;
  /** A job given back into the claimable state: this process's claim loop looks for it. */
  wake(): void;
}


export function createHoldRelease(deps: HoldReleaseDeps): ReleaseHold {
  const { store, registry } = deps;
  const need = (job: JobRecord) => {
    const machine = registry.forJob(job.name, job.retry);
    return uniqueNeed({ initial: machine.initial.state, claimed: registry.claimRule.to, finalStates: machine.finalStates }, job.state);
  };
  return async (id, token) => {
    for (let tries = 0; tries < AGAIN_AT_MOST; tries++) {
      const job = await store.get(id);
      // Gone, held by another run, or still the run's own (its outcome was not written: the lease runs out).
      if (!job || job.leaseToken !== token || job.state === registry.claimRule.to) return;
      const state = await store.releaseHold({ id, token, version: job.version, uniqueNeed: need(job) });
      if (state === null) continue;
      if (deps.deletesAtOnce(job.name, state)) {
        // The database's clock judges a throttle window; not read (an outage): the retention loop deletes the job later.
        const throttleAt = await deps.time.now().then(
          (t) => t.lo,
          () => undefined,
        );
        if (throttleAt !== undefined) await store.removeJobs([{ id, version: job.version, state, finished: true, throttleAt }], deps.clock.now());
      }
      if (state === registry.claimRule.from) deps.wake();
      return;
    }
  };
}
