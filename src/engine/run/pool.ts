/**
 * A fixed pool of worker actors (machines/worker.machine.ts), one per slot.
 *
 * An idle actor is a free slot. A started worker keeps taking jobs from the
 * consumer's local queue (claimed jobs waiting to start) until it is empty,
 * then goes idle: under load an actor changes state once per run of jobs, not
 * once per job. Nothing ever queues beyond what was claimed for free slots.
 */
import { createActor, type ActorRefFrom } from 'xstate';
import { Subject, type Observable } from 'rxjs';
import { workerMachine, WorkerState } from '../../../machines/worker.machine.js';

type WorkerActor = ActorRefFrom<typeof workerMachine>;

export interface WorkerInfo {
  workerId: string;
  state: string;
  /** The job running now. */
  jobId: number | null;
  processed: number;
}

export interface Pool {
  readonly size: number;
  /** Workers running a job now. */
  busy(): number;
  /** Starts idle workers on the jobs `next()` hands out, while both last. */
  kick(): void;
  /** Emits each time a worker goes idle. */
  readonly freed$: Observable<void>;
  /** Resolves when no worker is running. */
  whenIdle(): Promise<void>;
  /** Stops every actor (running ones once their current job ends; they take no new one). */
  stop(): void;
  snapshot(): WorkerInfo[];
}

export function createPool<J extends { id: number }>(
  size: number,
  idPrefix: string,
  next: () => J | undefined,
  run: (job: J, workerId: string) => Promise<void>,
): Pool {
  const actors: WorkerActor[] = [];
  const idle: WorkerActor[] = [];
  const current = new Map<WorkerActor, number>();
  const freed$ = new Subject<void>();
  let running = 0;
  let stopping = false;
  let idleWaiters: Array<() => void> = [];

  for (let i = 0; i < size; i++) {
    const actor = createActor(workerMachine, { input: { workerId: `${idPrefix}/w${i}` } }).start();
    actors.push(actor);
    idle.push(actor);
  }

  const work = async (actor: WorkerActor, first: J): Promise<void> => {
    const { workerId } = actor.getSnapshot().context;
    let count = 0;
    let job: J | undefined = first;
    while (job) {
      current.set(actor, job.id);
      await run(job, workerId); // never rejects
      count++;
      job = stopping ? undefined : next();
    }
    current.delete(actor);
    actor.send({ type: 'worker.finish', count });
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
    busy: () => running,
    kick() {
      while (idle.length > 0 && !stopping) {
        const job = next();
        if (!job) return;
        const actor = idle.pop()!;
        actor.send({ type: 'worker.start', jobId: job.id });
        running++;
        void work(actor, job);
      }
    },
    freed$: freed$.asObservable(),
    whenIdle: () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    stop() {
      stopping = true;
      idle.length = 0;
      for (const actor of actors) actor.send({ type: 'worker.stop' });
    },
    snapshot: () =>
      actors.map((a) => {
        const s = a.getSnapshot();
        return { workerId: s.context.workerId, state: String(s.value), jobId: current.get(a) ?? null, processed: s.context.processed };
      }),
  };
}
