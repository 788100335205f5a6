/**
 * createQueue(): the public facade. Producing (enqueue), consuming
 * (start/stop) and inspecting all go through here; the job machine decides
 * every transition and the store persists it.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Subject, type Observable } from 'rxjs';
import { JobState } from '../machines/job.machine.js';
import { createApplyEvent, type TransitionNotice } from './engine/apply-event.js';
import { createBatcher } from './lib/batcher.js';
import { systemClock } from './lib/clock.js';
import { createConsumer, type Consumer } from './engine/consumer.js';
import type { AnyJobDefinition as JobDefinition } from './engine/job-definition.js';
import { InvalidTransitionError, JobNotFoundError, QueueClosedError, ValidationError } from './errors.js';
import { queueEvent, type QueueEvent } from './engine/events.js';
import { toJob, toTransition, type Job, type Transition } from './engine/job-view.js';
import { createDefaultLogger } from './lib/logger.js';
import { createMachineRegistry } from './engine/machine-registry.js';
import { checkEnqueueOptions, deletesByAge, resolveQueueOptions, type EnqueueOptions, type QueueOptions } from './engine/options.js';
import { createSqliteStore } from './store/sqlite/sqlite-store.js';
import type { InsertResult, ListFilter, NewJob, QueueStats, TransitionRequest } from './store/store.js';
import { checkInteger, checkString, serializePayload } from './engine/validate.js';

export interface Queue {
  enqueue<P = unknown>(name: string, payload: P, options?: EnqueueOptions): Promise<InsertResult>;
  /** All or nothing: one transaction. */
  enqueueMany(items: ReadonlyArray<{ name: string; payload: unknown; options?: EnqueueOptions }>): Promise<InsertResult[]>;
  start(): Promise<void>;
  stop(options?: { timeout?: number }): Promise<void>;
  close(options?: { timeout?: number }): Promise<void>;
  getJob(id: number): Promise<Job>;
  history(id: number): Promise<Transition[]>;
  listJobs(filter?: ListFilter): Promise<Job[]>;
  stats(): Promise<QueueStats>;
  /** Sends a `dead` job back to `pending` with a fresh set of attempts. */
  retry(id: number): Promise<Job>;
  /** Cancels a job that has not finished; a running handler sees its signal abort. */
  cancel(id: number): Promise<Job>;
  /** Delivers any event the job's machine accepts (for machines with states of their own). */
  send(id: number, event: { type: string } & Record<string, unknown>): Promise<Job>;
  backup(destination: string): Promise<void>;
  /** One event per transition made by this process. */
  readonly events$: Observable<QueueEvent>;
  /** The worker actors' states (empty until started). */
  workers(): Array<{ workerId: string; state: string; jobId: number | null; processed: number }>;
}

/**
 * @example
 * const queue = createQueue({
 *   path: './app.db',
 *   concurrency: 8,
 *   jobs: [defineJob({ name: 'email', handler: async ({ to }) => send(to) })],
 * });
 * await queue.enqueue('email', { to: 'ada@example.com' }, { key: 'welcome:ada' });
 * await queue.start();
 */
export function createQueue(options: QueueOptions): Queue {
  const o = resolveQueueOptions(options);
  const clock = o.clock ?? systemClock;
  const logger = o.logger ? o.logger.child({ queue: o.name }) : createDefaultLogger(o.name);
  const definitions = new Map<string, JobDefinition>();
  for (const def of o.jobs) {
    if (definitions.has(def.name)) throw new ValidationError(`job "${def.name}" is defined twice`);
    definitions.set(def.name, def);
  }
  const registry = createMachineRegistry(definitions);
  const store = createSqliteStore({
    path: o.path,
    durability: o.durability,
    cacheMiB: o.cacheSize,
    busyTimeoutMs: o.busyTimeout,
    history: o.history,
    retentionIndex: deletesByAge(o.retention),
    onWarning: (message) => logger.warn(message),
  });
  const ownerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const subject = new Subject<QueueEvent>();
  let consumer: Consumer | undefined;
  let closed = false;

  const debug = logger.isLevelEnabled('debug');
  const announce = (e: QueueEvent) => {
    if (e.to === JobState.dead) logger.error({ jobId: e.job.id, job: e.job.name, attempt: e.attempts, err: e.error }, 'job is dead');
    else if (e.to === JobState.failed) logger.warn({ jobId: e.job.id, job: e.job.name, attempt: e.attempts, err: e.error, runAt: e.runAt }, 'attempt failed; will retry');
    else if (debug) logger.debug({ jobId: e.job.id, job: e.job.name, attempt: e.attempts, workerId: e.workerId, from: e.from, to: e.to, event: e.event }, `job ${e.from ?? 'new'} → ${e.to}`);
    subject.next(e);
  };
  const wantsEvents = () => debug || subject.observed;

  const onTransition = (n: TransitionNotice) => {
    if (consumer && definitions.has(n.job.name) && n.runAt !== undefined) {
      if (n.runAt > clock.now()) consumer.noteDue(n.runAt);
      else if (n.to === JobState.pending) consumer.wake();
    }
    if (n.to === JobState.failed || n.to === JobState.dead || wantsEvents()) {
      announce(queueEvent(n.job, n.from, n.to, n.event, n.at, n.attempts, n));
    }
  };

  const settle = createBatcher<TransitionRequest, boolean>((reqs) => store.transition(reqs));
  const apply = createApplyEvent({ registry, settle, clock, onTransition, retention: o.retention });

  const afterInsert = (jobs: readonly NewJob[], results: readonly InsertResult[], at: number) => {
    let wake = false;
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      if (!results[i]!.created) continue;
      if (consumer && definitions.has(job.name)) {
        if (job.runAt > at) consumer.noteDue(job.runAt);
        else wake = true;
      }
      if (wantsEvents()) announce(queueEvent({ id: results[i]!.id, name: job.name }, null, job.state, 'job.enqueue', at, 0));
    }
    if (wake) consumer!.wake();
  };

  const inserts = createBatcher<NewJob, InsertResult>(async (jobs) => {
    const at = clock.now();
    const results = await store.insert(jobs, at);
    afterInsert(jobs, results, at);
    return results;
  });

  const open = () => {
    if (closed) throw new QueueClosedError();
  };

  const toNewJob = (name: unknown, payload: unknown, opts: EnqueueOptions | undefined, now: number): NewJob => {
    checkString('enqueue name', name, 200);
    const checked = checkEnqueueOptions(opts, now);
    const def = definitions.get(name as string);
    if (checked.retry && def?.machine && typeof def.machine !== 'function') {
      throw new ValidationError(`job "${String(name)}" runs a fixed machine: put its retry policy in the machine`);
    }
    const initial = registry.forJob(name as string, checked.retry ? (JSON.parse(checked.retry) as Record<string, unknown>) : null).initial;
    return { name: name as string, state: initial.state, payload: serializePayload(payload, o.maxPayloadBytes), ...checked };
  };

  const loadRef = async (id: number) => {
    checkInteger('job id', id, 1);
    const job = await store.get(id);
    if (!job) throw new JobNotFoundError(id);
    return job;
  };

  const send: Queue['send'] = async (id, event) => {
    open();
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') {
      throw new ValidationError('send: event must be an object with a string "type"');
    }
    const job = await loadRef(id);
    const r = await apply({ ...job, token: job.leaseToken }, event);
    if (!r.accepted) throw new InvalidTransitionError(id, job.state, event.type);
    if (!r.committed) throw new InvalidTransitionError(id, (await loadRef(id)).state, event.type); // changed under us
    // The job left processing under a running handler of this process: stop it.
    if (job.state === JobState.processing && r.to !== JobState.processing) consumer?.abort(id, 'cancel');
    return toJob((await store.get(id))!);
  };

  return {
    async enqueue(name, payload, opts) {
      open();
      return inserts.push(toNewJob(name, payload, opts, clock.now()));
    },
    async enqueueMany(items) {
      open();
      if (!Array.isArray(items)) throw new ValidationError('enqueueMany takes an array of { name, payload, options }');
      const now = clock.now();
      const jobs = items.map((item) => toNewJob(item?.name, item?.payload, item?.options, now));
      if (jobs.length === 0) return [];
      const results = await store.insert(jobs, now);
      afterInsert(jobs, results, now);
      return results;
    },
    async start() {
      open();
      if (consumer) return;
      consumer = createConsumer({
        store, registry, definitions, apply, clock, logger, ownerId,
        settleBacklog: () => settle.backlog(),
        concurrency: o.concurrency,
        prefetch: o.prefetch,
        retention: o.retention,
        leaseMs: o.lease,
        pollMs: o.pollInterval,
        ...(o.scheduler ? { scheduler: o.scheduler } : {}),
        onClaimed: (job) => {
          if (wantsEvents()) announce(queueEvent({ id: job.id, name: job.name }, JobState.pending, JobState.processing, 'job.claim', clock.now(), job.attempts));
        },
      });
      consumer.start();
      logger.info({ concurrency: o.concurrency, jobs: [...definitions.keys()] }, 'queue started');
    },
    async stop(stopOptions) {
      if (!consumer) return;
      const c = consumer;
      await c.stop(stopOptions?.timeout ?? 10_000);
      consumer = undefined;
      await settle.drain();
      logger.info('queue stopped');
    },
    async close(closeOptions) {
      if (closed) return;
      await this.stop(closeOptions);
      await inserts.drain();
      await settle.drain();
      closed = true;
      subject.complete();
      await store.close();
    },
    async getJob(id) {
      open();
      return toJob(await loadRef(id));
    },
    async history(id) {
      open();
      await loadRef(id);
      return (await store.history(id)).map(toTransition);
    },
    async listJobs(filter = {}) {
      open();
      if (filter.limit !== undefined) checkInteger('listJobs limit', filter.limit, 1, 10_000);
      if (filter.after !== undefined) checkInteger('listJobs after', filter.after, 0);
      return (await store.list(filter)).map(toJob);
    },
    async stats() {
      open();
      return store.stats();
    },
    async retry(id) {
      return send(id, { type: 'job.retry' });
    },
    async cancel(id) {
      return send(id, { type: 'job.cancel' });
    },
    send,
    async backup(destination) {
      open();
      checkString('backup destination', destination, 4096);
      await store.backup(destination);
    },
    events$: subject.asObservable(),
    workers: () => consumer?.workers() ?? [],
  };
}
