/**
 * A fixed pool of worker actors (machines/worker.machine.ts), one per slot.
 * An idle actor is a free slot: the scheduler claims exactly as many jobs as
 * there are idle actors, so nothing ever queues in memory.
 */
import { createActor, type ActorRefFrom } from 'xstate';
import { Subject, type Observable } from 'rxjs';
import { workerMachine, WorkerState } from '../machines/worker.machine.js';

type WorkerActor = ActorRefFrom<typeof workerMachine>;

export interface Pool {
  readonly size: number;
  /** Idle worker actors. */
  free(): number;
  /** Jobs running now. */
  busy(): number;
  /** Hands a task to an idle worker; throws if none is idle (the scheduler never over-claims). */
  dispatch(jobId: number, task: (workerId: string) => Promise<void>): void;
  /** Emits each time a worker becomes idle. */
  readonly freed$: Observable<void>;
  /** Resolves when no worker is running. */
  whenIdle(): Promise<void>;
  /** Stops every actor (running ones once their task ends). */
  stop(): void;
  /** The state of each worker actor, for inspection. */
  snapshot(): Array<{ workerId: string; state: string; jobId: number | null; processed: number }>;
}

export function createPool(size: number, idPrefix: string): Pool {
  const actors: WorkerActor[] = [];
  const idle: WorkerActor[] = [];
  const freed$ = new Subject<void>();
  let running = 0;
  let idleWaiters: Array<() => void> = [];

  for (let i = 0; i < size; i++) {
    const actor = createActor(workerMachine, { input: { workerId: `${idPrefix}/w${i}` } }).start();
    actors.push(actor);
    idle.push(actor);
  }

  const finish = (actor: WorkerActor): void => {
    actor.send({ type: 'worker.finish' });
    running--;
    if (actor.getSnapshot().value === WorkerState.idle) idle.push(actor);
    if (running === 0 && idleWaiters.length > 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
    freed$.next();
  };

  return {
    size,
    free: () => idle.length,
    busy: () => running,
    dispatch(jobId, task) {
      const actor = idle.pop();
      if (!actor) throw new RangeError('no idle worker: the scheduler claimed more jobs than free slots');
      actor.send({ type: 'worker.start', jobId });
      running++;
      const { workerId } = actor.getSnapshot().context;
      task(workerId).then(
        () => finish(actor),
        () => finish(actor),
      );
    },
    freed$: freed$.asObservable(),
    whenIdle: () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    stop() {
      idle.length = 0;
      for (const actor of actors) actor.send({ type: 'worker.stop' });
    },
    snapshot: () =>
      actors.map((a) => {
        const s = a.getSnapshot();
        return { workerId: s.context.workerId, state: String(s.value), jobId: s.context.jobId, processed: s.context.processed };
      }),
  };
}
