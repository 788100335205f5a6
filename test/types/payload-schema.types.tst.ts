/**
 * Type inference from a job's schema (any Standard Schema v1): `enqueue`
 * takes the schema's input type, the handler gets its output type. Never
 * run, only type-checked by `npm test` (tsc): each `@ts-expect-error` line
 * must be an error.
 */
import * as v from 'valibot';
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import { createQueue, declareJob, defineJob, type HandlerContext, type InsertResult } from '../../src/index.js';

// A default makes `locale` optional on the way in and present on the way out.
const welcomeSchema = z.object({ to: z.string(), locale: z.string().default('en') });
// A transform changes the type: a string in, a number out.
const resizeSchema = v.object({ url: v.string(), width: v.pipe(v.string(), v.transform(Number)) });

const welcome = defineJob({
  name: 'welcome',
  schema: welcomeSchema,
  handler: async (payload) => {
    expectTypeOf(payload).toEqualTypeOf<{ to: string; locale: string }>();
    return { sent: true };
  },
});
const resize = defineJob({
  name: 'resize',
  schema: resizeSchema,
  handler: (payload) => {
    expectTypeOf(payload).toEqualTypeOf<{ url: string; width: number }>();
    return payload.width;
  },
});
// Never called: the types are what is under test.
const typed = () => createQueue({ path: ':memory:', jobs: [welcome, resize] });

// enqueue takes the schema's input type
export function enqueueTakesTheInput() {
  const queue = typed();
  expectTypeOf(queue.enqueue('welcome', { to: 'ada@example.com' })).toEqualTypeOf<Promise<InsertResult>>();
  void queue.enqueue('welcome', { to: 'ada@example.com', locale: 'fr' });
  void queue.enqueue('resize', { url: 'x', width: '300' });
  expectTypeOf(queue.enqueue).parameter(0).toEqualTypeOf<'welcome' | 'resize'>();
  // @ts-expect-error a field of the wrong type
  void queue.enqueue('welcome', { to: 42 });
  // @ts-expect-error a required field missing
  void queue.enqueue('welcome', { locale: 'fr' });
  // @ts-expect-error the output type, not the input: width goes in as a string
  void queue.enqueue('resize', { url: 'x', width: 300 });
  // @ts-expect-error an unknown job name
  void queue.enqueue('welcom', { to: 'a' });
  void queue.enqueueMany([
    { name: 'welcome', payload: { to: 'a' } },
    { name: 'resize', payload: { url: 'x', width: '3' } },
  ]);
  // @ts-expect-error an item whose payload is the other job's
  void queue.enqueueMany([{ name: 'resize', payload: { to: 'a' } }]);
  void queue.schedule('welcome', '0 9 * * *', { payload: { to: 'team@example.com' } });
  // @ts-expect-error a schedule payload of the wrong type
  void queue.schedule('welcome', '0 9 * * *', { payload: { to: 1 } });
}

// the handler gets the output type, and a stored job reads as it
export async function handlerGetsTheOutput() {
  void defineJob({ name: 'annotated', schema: welcomeSchema, handler: async (payload: { to: string; locale: string }, ctx: HandlerContext) => `${payload.to}${ctx.attempt}` });
  // @ts-expect-error a handler that wants a field the schema does not give
  void defineJob({ name: 'wrong', schema: welcomeSchema, handler: async (payload: { url: string }) => payload.url });
  const job = await typed().getJob(1);
  if (job.name === 'welcome') expectTypeOf(job.result).toEqualTypeOf<{ sent: boolean } | undefined>();
  // A definition's schedule payload is the input type too.
  void defineJob({ name: 'digest', schema: welcomeSchema, schedule: { cron: '0 9 * * *', payload: { to: 'a' } }, handler: async ({ locale }) => locale });
  // @ts-expect-error a schedule payload the schema does not take
  void defineJob({ name: 'digest', schema: welcomeSchema, schedule: { cron: '0 9 * * *', payload: { url: 'a' } }, handler: async ({ locale }) => locale });
}

// declareJob(name, { schema }) types a producer the same way
export function declarationsWithASchema() {
  const producer = () => createQueue({ path: ':memory:', jobs: [declareJob('welcome', { schema: welcomeSchema }), declareJob('resize', { schema: resizeSchema })] });
  expectTypeOf(producer().enqueue).parameter(0).toEqualTypeOf<'welcome' | 'resize'>();
  void producer().enqueue('welcome', { to: 'a' });
  void producer().enqueue('resize', { url: 'x', width: '3' });
  // @ts-expect-error a field of the wrong type
  void producer().enqueue('welcome', { to: 1 });
  // @ts-expect-error the output type, not the input
  void producer().enqueue('resize', { url: 'x', width: 3 });
  // The result type as well: the schema's type first.
  const withResult = () => createQueue({ path: ':memory:', jobs: [declareJob<typeof welcomeSchema, { sent: boolean }, 'welcome'>('welcome', { schema: welcomeSchema })] });
  void withResult().enqueue('welcome', { to: 'a' });
  // @ts-expect-error a wrong payload
  void withResult().enqueue('welcome', { url: 'a' });
}

// explicit types without a schema still work as before
export function explicitTypesWithoutASchema() {
  const mail = defineJob<{ to: string }, boolean, 'mail'>({ name: 'mail', handler: async ({ to }) => to.length > 0 });
  const queue = () => createQueue({ path: ':memory:', jobs: [mail, declareJob<{ id: number }, void, 'sync'>('sync')] });
  void queue().enqueue('mail', { to: 'a' });
  void queue().enqueue('sync', { id: 1 });
  // @ts-expect-error a wrong payload for an explicitly typed job
  void queue().enqueue('mail', { to: 1 });
  // @ts-expect-error a wrong payload for an explicitly typed declaration
  void queue().enqueue('sync', { id: 'one' });
  // @ts-expect-error not a Standard Schema
  void declareJob('bad', { schema: { parse: () => 1 } });
}
