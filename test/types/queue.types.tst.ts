/**
 * Type inference users rely on: a queue made from typed jobs knows each job's
 * payload and result by name. This file is never run, only type-checked by
 * `npm test` (tsc): each `expectTypeOf` is checked by the compiler, and each
 * `@ts-expect-error` line must be an error, or the type check fails.
 */
import Database from 'better-sqlite3';
import { expectTypeOf } from 'vitest';
import { createQueue, declareJob, defineJob, type InsertResult, type Queue } from '../../src/index.js';

interface Welcome {
  to: string;
}
interface Resize {
  url: string;
  width: number;
}

const sendWelcome = defineJob({ name: 'send-welcome', handler: async ({ to }: Welcome) => ({ sent: to.length > 0 }) });
const resizeImage = defineJob({ name: 'resize-image', handler: ({ width }: Resize) => ({ width }) });
// Never called: the types are what is under test.
const typed = () => createQueue({ path: ':memory:', jobs: [sendWelcome, resizeImage] });

// takes each job name with its own payload
export function namesAndPayloads() {
  const queue = typed();
  expectTypeOf(queue.enqueue('send-welcome', { to: 'ada@example.com' })).toEqualTypeOf<Promise<InsertResult>>();
  expectTypeOf(queue.enqueue).parameter(0).toEqualTypeOf<'send-welcome' | 'resize-image'>();
  // @ts-expect-error an unknown job name
  void queue.enqueue('send-welcom', { to: 'ada@example.com' });
  // @ts-expect-error the payload of another job
  void queue.enqueue('send-welcome', { url: 'x', width: 3 });
  // @ts-expect-error a payload field of the wrong type
  void queue.enqueue('resize-image', { url: 'x', width: '3' });
}

// checks enqueueMany item by item
export function enqueueManyItems() {
  const queue = typed();
  void queue.enqueueMany([
    { name: 'send-welcome', payload: { to: 'a' } },
    { name: 'resize-image', payload: { url: 'x', width: 3 }, options: { delay: 10 } },
  ]);
  // @ts-expect-error a payload that belongs to the other name
  void queue.enqueueMany([{ name: 'resize-image', payload: { to: 'a' } }]);
}

// types enqueueSync and enqueueManySync as enqueue and enqueueMany, synchronously, and takes a better-sqlite3 Database
export function synchronousEnqueue() {
  const db = new Database('app.db');
  const queue = createQueue({ database: db, jobs: [sendWelcome, resizeImage] });
  expectTypeOf(queue.enqueueSync('send-welcome', { to: 'ada@example.com' }, { unique: { key: 'ada' } })).toEqualTypeOf<InsertResult>();
  expectTypeOf(queue.enqueueSync).parameter(0).toEqualTypeOf<'send-welcome' | 'resize-image'>();
  expectTypeOf(queue.enqueueManySync([{ name: 'resize-image', payload: { url: 'x', width: 3 } }])).toEqualTypeOf<InsertResult[]>();
  // @ts-expect-error the payload of another job
  queue.enqueueSync('send-welcome', { url: 'x', width: 3 });
  // @ts-expect-error a payload that belongs to the other name
  queue.enqueueManySync([{ name: 'resize-image', payload: { to: 'a' } }]);
  // @ts-expect-error not a database
  createQueue({ database: 'app.db' });
}

// narrows getJob by name to that job payload and result
export async function getJobNarrowsByName() {
  const job = await typed().getJob(1);
  if (job.name === 'resize-image') {
    expectTypeOf(job.payload).toEqualTypeOf<Resize>();
    expectTypeOf(job.result).toEqualTypeOf<{ width: number } | undefined>();
  } else {
    expectTypeOf(job.name).toEqualTypeOf<'send-welcome'>();
    expectTypeOf(job.payload).toEqualTypeOf<Welcome>();
    expectTypeOf(job.result).toEqualTypeOf<{ sent: boolean } | undefined>();
  }
}

// types queue.result by the job's name, or as any of the queue's results from the id alone
export async function resultByName() {
  const queue = typed();
  expectTypeOf(queue.result({ id: 1, name: 'resize-image' })).toEqualTypeOf<Promise<{ width: number }>>();
  expectTypeOf(queue.result({ id: 2, name: 'send-welcome' }, { timeout: 1000 })).toEqualTypeOf<Promise<{ sent: boolean }>>();
  expectTypeOf(queue.result(3)).toEqualTypeOf<Promise<{ width: number } | { sent: boolean }>>();
  expectTypeOf(queue.result<string>(3)).toEqualTypeOf<Promise<string>>();
  // @ts-expect-error a name the queue does not have
  void queue.result({ id: 1, name: 'resize' });
  // An untyped queue: unknown, as before.
  expectTypeOf(createQueue({ path: ':memory:' }).result(1)).toEqualTypeOf<Promise<unknown>>();
}

// types a producer from declarations, without handlers
export function producerFromDeclarations() {
  const producer = () => createQueue({ path: ':memory:', jobs: [declareJob<Resize, { width: number }, 'resize-image'>('resize-image')] });
  expectTypeOf(producer().enqueue).parameter(0).toEqualTypeOf<'resize-image'>();
  // @ts-expect-error an unknown job name
  void producer().enqueue('send-welcome', { to: 'a' });
  // @ts-expect-error a wrong payload
  void producer().enqueue('resize-image', { url: 1 });
  // Without the name as a type argument the name is only `string`: such a queue takes any name and payload.
  const loose = () => createQueue({ path: ':memory:', jobs: [declareJob<Resize>('resize-image')] });
  void loose().enqueue('anything', { whatever: true });
}

// leaves a queue without jobs untyped
export function queueWithoutJobs() {
  const any = () => createQueue({ path: ':memory:' });
  expectTypeOf(any).returns.toEqualTypeOf<Queue>();
  void any().enqueue('whatever', { n: 1 });
}


// schedules take each job's name and payload
export function schedules() {
  const queue = typed();
  void queue.schedule('send-welcome', '0 9 * * *', { payload: { to: 'team@example.com' } });
  // @ts-expect-error an unknown job name
  void queue.schedule('send-welcom', '0 9 * * *');
  // @ts-expect-error the payload of another job
  void queue.schedule('resize-image', '0 9 * * *', { payload: { to: 'x' } });
  // @ts-expect-error an unknown missed-slot policy
  void queue.schedule('send-welcome', '0 9 * * *', { missed: 'some' });
  // A schedule's id: its job name, or an id of its own.
  expectTypeOf(queue.unschedule).parameter(0).toEqualTypeOf<string>();
  void queue.schedule('send-welcome', { every: '5m' }, { id: 'welcome-often', limit: 3, payload: { to: 'a' } });
  // @ts-expect-error cron or every, as an object
  void queue.schedule('send-welcome', { each: '5m' });
  void defineJob({ name: 'digest', schedule: { cron: '0 9 * * *', payload: { to: 'a' } }, handler: async ({ to }: Welcome) => to });
  // @ts-expect-error a schedule payload the handler does not take
  void defineJob({ name: 'digest', schedule: { cron: '0 9 * * *', payload: { url: 'a' } }, handler: async ({ to }: Welcome) => to });
}
