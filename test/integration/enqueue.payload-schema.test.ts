/**
 * A job's schema validates each payload at enqueue, before anything is
 * written, whatever the vendor (zod and valibot here): the stored payload is
 * the schema's output (defaults and transforms applied, and the handler gets
 * it); a refused payload is a PayloadValidationError with the issues and no
 * row; one bad item refuses a whole enqueueMany; a schedule's payload is
 * validated when it is saved.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { declareJob, defineJob, PayloadValidationError, ValidationError } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const fx = useQueues();

const welcomeSchema = z.object({ to: z.string().trim().toLowerCase().pipe(z.email()), locale: z.string().default('en') });
const orderSchema = v.object({ sku: v.pipe(v.string(), v.trim(), v.toUpperCase()), qty: v.optional(v.number(), 1) });

const welcome = defineJob({ name: 'welcome', schema: welcomeSchema, handler: async ({ to, locale }) => `${locale}:${to}` });
const order = defineJob({ name: 'order', schema: orderSchema, handler: async ({ sku, qty }) => `${qty}×${sku}` });

/** Rows in the jobs table (the stats call first creates the tables on PostgreSQL, where nothing else may have). */
async function jobCount(q: { stats(): Promise<unknown> }): Promise<number> {
  await q.stats();
  return fx.value<number>('SELECT count(*) FROM jobs');
}

async function refusal(p: Promise<unknown>): Promise<PayloadValidationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PayloadValidationError);
  return err as PayloadValidationError;
}

describe('a job schema at enqueue', () => {
  it('stores the output of a zod schema (transforms and defaults), and the handler gets it', async () => {
    const q = fx.open({ jobs: [welcome] });
    const { id } = await q.enqueue('welcome', { to: '  Ada@Example.COM ' });
    expect((await q.getJob(id)).payload).toEqual({ to: 'ada@example.com', locale: 'en' });
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.start();
    await done;
    expect((await q.getJob(id)).result).toBe('en:ada@example.com');
  });

  it('stores the output of a valibot schema, item by item in enqueueMany', async () => {
    const q = fx.open({ jobs: [order, welcome] });
    const results = await q.enqueueMany([
      { name: 'order', payload: { sku: ' ab-1 ' } },
      { name: 'welcome', payload: { to: 'BOB@example.com', locale: 'fr' } },
      { name: 'order', payload: { sku: 'cd-2', qty: 3 } },
    ]);
    const payloads = await Promise.all(results.map(async (r) => (await q.getJob(r.id)).payload));
    expect(payloads).toEqual([{ sku: 'AB-1', qty: 1 }, { to: 'bob@example.com', locale: 'fr' }, { sku: 'CD-2', qty: 3 }]);
  });

  it('refuses a bad payload with the issues (zod and valibot) and writes nothing', async () => {
    const q = fx.open({ jobs: [welcome, order] });
    const zodErr = await refusal(q.enqueue('welcome', { to: 'not an address', locale: 7 } as never));
    expect(zodErr).toBeInstanceOf(ValidationError);
    expect(zodErr.code).toBe('LJ_ERR_INVALID_PAYLOAD');
    expect(zodErr.job).toBe('welcome');
    expect(zodErr.index).toBeUndefined();
    expect(zodErr.issues.map((i) => i.path)).toEqual([['to'], ['locale']]);
    expect(zodErr.message).toMatch(/^job "welcome": the payload does not match the schema: to: .+; locale: .+/);
    // valibot's path segments are objects ({ key, … }): the error carries the keys.
    const valibotErr = await refusal(q.enqueue('order', { sku: 42 } as never));
    expect(valibotErr.issues).toEqual([{ message: expect.any(String), path: ['sku'] }]);
    expect(await jobCount(q)).toBe(0);
    expect((await q.stats()).total).toBe(0);
  });

  it('refuses a whole enqueueMany for one bad item, naming its index, and writes nothing', async () => {
    const q = fx.open({ jobs: [welcome, order] });
    const err = await refusal(
      q.enqueueMany([
        { name: 'welcome', payload: { to: 'ada@example.com' } },
        { name: 'untyped', payload: { anything: true } },
        { name: 'order', payload: { sku: 'x', qty: 'two' } as never },
        { name: 'welcome', payload: { to: 'nobody' } },
      ]),
    );
    expect(err.index).toBe(2);
    expect(err.job).toBe('order');
    expect(err.message).toMatch(/^enqueueMany item 2: job "order": .*qty/);
    expect(err.issues).toEqual([{ message: expect.any(String), path: ['qty'] }]);
    expect(await jobCount(q)).toBe(0);
  });

  it('waits for an async validator (an async refinement), and refuses with its issues', async () => {
    const taken = new Set(['ada']);
    const signup = defineJob({
      name: 'signup',
      schema: z.object({ user: z.string().refine(async (name) => !taken.has(name), 'that name is taken') }),
      handler: async ({ user }) => user,
    });
    const q = fx.open({ jobs: [signup] });
    const err = await refusal(q.enqueue('signup', { user: 'ada' }));
    expect(err.issues).toEqual([{ message: 'that name is taken', path: ['user'] }]);
    const { id } = await q.enqueue('signup', { user: 'bob' });
    expect((await q.getJob(id)).payload).toEqual({ user: 'bob' });
    expect(await jobCount(q)).toBe(1);
  });

  it('wraps a validator that throws in the same error, keeping what it threw as the cause', async () => {
    const boom = new Error('validator exploded');
    const schema = { '~standard': { version: 1 as const, vendor: 'hand-made', validate: (): never => { throw boom; } } };
    const q = fx.open({ jobs: [defineJob({ name: 'fragile', schema, handler: () => 1 })] });
    const err = await refusal(q.enqueue('fragile', {}));
    expect(err.cause).toBe(boom);
    expect(err.message).toContain('validator exploded');
    expect(err.issues).toEqual([{ message: expect.stringContaining('validator exploded') }]);
    expect(await jobCount(q)).toBe(0);
  });

  it('validates in a producer that only declares the job', async () => {
    const producer = fx.open({ jobs: [declareJob('welcome', { schema: welcomeSchema })] });
    await refusal(producer.enqueue('welcome', { to: 'nobody' }));
    const { id } = await producer.enqueue('welcome', { to: 'Eve@Example.com' });
    expect((await producer.getJob(id)).payload).toEqual({ to: 'eve@example.com', locale: 'en' });
    expect(await jobCount(producer)).toBe(1);
  });

  it('validates a schedule payload when it is saved, and stores the output', async () => {
    const q = fx.open({ jobs: [welcome] });
    await refusal(q.schedule('welcome', '0 9 * * *', { payload: { to: 'nobody' } }));
    await refusal(q.schedule('welcome', '0 9 * * *')); // no payload: the schema wants one
    expect(await q.schedules()).toEqual([]);
    await q.schedule('welcome', '0 9 * * *', { payload: { to: 'TEAM@example.com' } });
    expect((await q.schedules()).map((s) => s.payload)).toEqual([{ to: 'team@example.com', locale: 'en' }]);
  });

  it("refuses at start a definition's schedule whose payload the schema refuses", async () => {
    const digest = defineJob({ name: 'digest', schema: welcomeSchema, schedule: { cron: '0 9 * * *', payload: { to: 'nobody' } }, handler: async () => 1 });
    const q = fx.open({ jobs: [digest] });
    const err = await refusal(q.start());
    expect(err.job).toBe('digest');
    expect(await q.schedules()).toEqual([]);
  });

  it('refuses a schema that is not a Standard Schema at defineJob and declareJob', () => {
    expect(() => defineJob({ name: 'x', schema: { parse: () => 1 } as never, handler: () => 1 })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION', message: expect.stringContaining('Standard Schema') }));
    expect(() => declareJob('x', { schema: { '~standard': { version: 2, validate: () => ({ value: 1 }) } } as never })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(() => declareJob('x', { scheme: welcomeSchema } as never)).toThrow(expect.objectContaining({ code: 'LJ_ERR_UNKNOWN_OPTION' }));
  });
});
