/**
 * Every way a job is written: one at a time (calls of the same tick share a
 * commit), a batch, a flow, a schedule's slots, through the caller's own
 * client, synchronously in the application's transaction. Each write runs in
 * its trace's `send` span when tracing is on (the row stores the span's
 * context). Each commit is told on `written$` (the engine wakes its claim
 * loop for the jobs it runs and announces created jobs from there).
 */
import { Subject, type Observable } from 'rxjs';
import { createBatcher } from '../../lib/batcher.js';
import type { Clock } from '../../lib/clock.js';
import type { CallerClient, FlowInsertResult, InsertResult, NewFlowNode, NewJob, ScheduleRecord, Store } from '../../store/store.js';
import { inserted, type SendInfo, type Tracing } from '../../telemetry/tracing.js';
import { NotSupportedError, ValidationError } from '../../errors.js';
import type { DatabaseTime, SharedTime } from '../core/shared-time.js';

export const SYNC_NOT_SUPPORTED = 'enqueueSync: this store cannot write synchronously; on PostgreSQL, enqueue inside your transaction with enqueue(name, payload, { client })';

export interface EnqueuePaths {
  enqueue(job: NewJob): Promise<InsertResult>;
  enqueueMany(jobs: readonly NewJob[]): Promise<InsertResult[]>;
  fireSchedule(read: ScheduleRecord, jobs: readonly NewJob[], slot: number): Promise<InsertResult[] | null>;
  enqueueFlow(root: NewFlowNode, waiting: string): Promise<FlowInsertResult>;
  enqueueVia(client: CallerClient, jobs: readonly NewJob[]): Promise<InsertResult[]>;
  enqueueSync(jobs: readonly NewJob[]): InsertResult[];
  /** Resolves once every insert pushed so far has committed. */
  drain(): Promise<void>;
  /** Each write once committed (a synchronous one once the calling code has run to its end). */
  readonly written$: Observable<Written>;
}

/** Jobs written by one commit, with what the store answered for each. */
export interface Written {
  jobs: readonly NewJob[];
  results: readonly InsertResult[];
  at: number;
  /** False while the commit is not known (a synchronous write inside the application's transaction): no `job.enqueue` event. */
  known: boolean;
}

export interface EnqueueDeps {
  store: Store;
  clock: Clock;
  /** The database's clock: throttle windows are kept on it. */
  time: SharedTime;
  tracing: Tracing;
  closed(): boolean;
}

const ONE = inserted('enqueue');
const MANY = inserted('enqueue_many');
const SCHEDULE: SendInfo<InsertResult[] | null> = { operation: 'schedule', root: true, ids: (r) => r };
const FLOW: SendInfo<FlowInsertResult> = { operation: 'enqueue_flow', ids: (r) => flowIds(r, []) };

function flowIds(r: FlowInsertResult, out: Array<{ id: number; created: boolean }>): Array<{ id: number; created: boolean }> {
  out.push({ id: r.id, created: true });
  for (const child of r.children) flowIds(child, out);
  return out;
}

export function createEnqueuePaths(deps: EnqueueDeps): EnqueuePaths {
  const { store, clock, time, tracing } = deps;
  const written = new Subject<Written>();
  const afterInsert = (jobs: readonly NewJob[], results: readonly InsertResult[], at: number, known = true) => written.next({ jobs, results, at, known });

  /**
   * Throttle windows on the database's clock (shared-time.ts), so that one
   * host's window is not cut short by another's clock: opened at the latest
   * time the database's clock may read, found ended at the earliest.
   */
  const windowsOn = (jobs: readonly NewJob[], t: DatabaseTime): readonly NewJob[] =>
    jobs.map((job) => (job.unique?.windowMs === undefined ? job : { ...job, unique: { ...job.unique, until: t.hi + job.unique.windowMs, clockAt: t.lo } }));
  const throttled = (jobs: readonly NewJob[]) => jobs.some((job) => job.unique?.windowMs !== undefined);
  const stamped = async (jobs: readonly NewJob[]) => (throttled(jobs) ? windowsOn(jobs, await time.now()) : jobs);

  const insertBatch = async (jobs: readonly NewJob[]): Promise<InsertResult[]> => {
    const rows = await stamped(jobs);
    const at = clock.now();
    const results = await store.insert(rows, at);
    afterInsert(jobs, results, at);
    return results;
  };
  const inserts = createBatcher<NewJob, InsertResult>(insertBatch);

  const flowInsert = async (root: NewFlowNode, waiting: string): Promise<FlowInsertResult> => {
    const at = clock.now();
    const result = await store.insertFlow(root, waiting, at);
    // Announced and woken for as any insert, each job in the state it was created in.
    const jobs: NewJob[] = [];
    const results: InsertResult[] = [];
    const walk = (node: NewFlowNode, r: FlowInsertResult) => {
      jobs.push(r.state === node.job.state ? node.job : { ...node.job, state: r.state });
      results.push({ id: r.id, created: true, state: r.state });
      node.children.forEach((child, i) => {
        walk(child, r.children[i]!);
      });
    };
    walk(root, result);
    afterInsert(jobs, results, at);
    return result;
  };

  const via = (client: CallerClient, jobs: readonly NewJob[]): Promise<InsertResult[]> => {
    if (!store.insertVia) throw new ValidationError("enqueue client: only a queue on PostgreSQL writes through the caller's own client");
    // No enqueue events and no wake-up here: the caller may yet roll back. Its commit
    // delivers the store's change notification, which wakes this process's claim loop too.
    return stamped(jobs).then((rows) => store.insertVia!(client, rows, clock.now()));
  };

  const sync = (jobs: readonly NewJob[]): InsertResult[] => {
    const at = clock.now();
    const { results, committed } = store.insertSync!(throttled(jobs) ? windowsOn(jobs, time.nowSync()) : jobs, at);
    // Woken after the caller's code, never inside it: a claim now would meet the application's
    // own write lock. Jobs whose commit is not known yet get no enqueue event (they may roll
    // back); a wake for jobs that rolled back only finds nothing to claim.
    setImmediate(() => {
      if (!deps.closed()) afterInsert(jobs, results, at, committed);
    });
    return results;
  };

  return {
    // The untraced path first: no wrapper, no allocation beyond the batcher's.
    enqueue: (job) => (tracing.active() ? tracing.send(ONE, [job], async () => [await inserts.push(job)]).then((r) => r[0]!) : inserts.push(job)),
    enqueueMany: (jobs) => (jobs.length === 0 ? Promise.resolve([]) : tracing.send(MANY, jobs, () => insertBatch(jobs))),
    fireSchedule: (read, jobs, slot) =>
      tracing.send(SCHEDULE, jobs, async () => {
        const at = clock.now();
        const results = await store.fireSchedule(read, jobs, slot, at);
        if (results) afterInsert(jobs, results, at);
        return results;
      }),
    enqueueFlow: (root, waiting) => tracing.send(FLOW, flowJobs(root, []), () => flowInsert(root, waiting)),
    enqueueVia: async (client, jobs) => tracing.send(jobs.length === 1 ? ONE : MANY, jobs, () => via(client, jobs)),
    enqueueSync(jobs) {
      if (!store.insertSync) throw new NotSupportedError(SYNC_NOT_SUPPORTED);
      if (jobs.length === 0) return [];
      return tracing.sendSync(jobs.length === 1 ? ONE : MANY, jobs, () => sync(jobs));
    },
    drain: () => inserts.drain(),
    written$: written.asObservable(),
  };
}

/** Every job of a flow's tree, parents before their children. */
function flowJobs(node: NewFlowNode, out: NewJob[]): NewJob[] {
  out.push(node.job);
  for (const child of node.children) flowJobs(child, out);
  return out;
}
