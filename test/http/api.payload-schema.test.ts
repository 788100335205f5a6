/**
 * POST /v1/jobs, /v1/jobs/batch and /v1/schedules with a job's schema: a refused payload is
 * a 400 `LJ_ERR_INVALID_PAYLOAD` whose body carries the schema's issues (and
 * the batch item's index), and nothing is written; an accepted one is stored
 * as the schema's output.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { declareJob, defineJob } from '../../src/index.js';
import { useServers } from '../helpers/http-server.js';

const serve = useServers();

const signup = defineJob({
  name: 'signup',
  schema: z.object({ email: z.email(), plan: z.enum(['free', 'pro']).default('free') }),
  handler: async ({ email }) => email,
});
// A producer-only server validates too: a declared job with a valibot schema.
const sku = declareJob('restock', { schema: v.object({ sku: v.pipe(v.string(), v.toUpperCase()), qty: v.pipe(v.number(), v.minValue(1)) }) });

describe('a job schema over HTTP', () => {
  it('POST /v1/jobs answers 400 with the issues for a refused payload, and stores the output of an accepted one', async () => {
    const s = await serve({ queue: { jobs: [signup, sku] } });
    const bad = await s.call('POST', '/v1/jobs', { body: { name: 'signup', payload: { email: 'nope', plan: 'gold' } } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: {
        code: 'LJ_ERR_INVALID_PAYLOAD',
        message: expect.stringMatching(/^job "signup": the payload does not match the schema: email: .+; plan: .+/),
        issues: [
          { message: expect.any(String), path: ['email'] },
          { message: expect.any(String), path: ['plan'] },
        ],
      },
    });
    // No payload at all is validated as null.
    const none = await s.call('POST', '/v1/jobs', { body: { name: 'restock' } });
    expect(none.status).toBe(400);
    expect(none.body.error.issues).toEqual([{ message: expect.any(String) }]);
    expect((await s.snapshot()).jobs).toBe(0);

    const ok = await s.call('POST', '/v1/jobs', { body: { name: 'signup', payload: { email: 'ada@example.com' } } });
    expect(ok.status).toBe(201);
    expect((await s.queue.getJob(ok.body.id)).payload).toEqual({ email: 'ada@example.com', plan: 'free' });
  });

  it('POST /v1/jobs/batch refuses the whole batch for one bad item, naming its index', async () => {
    const s = await serve({ queue: { jobs: [signup, sku] } });
    const bad = await s.call('POST', '/v1/jobs/batch', {
      body: { jobs: [{ name: 'restock', payload: { sku: 'ab', qty: 2 } }, { name: 'other', payload: 1 }, { name: 'restock', payload: { sku: 'cd', qty: 0 } }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'LJ_ERR_INVALID_PAYLOAD', index: 2, issues: [{ message: expect.any(String), path: ['qty'] }] });
    expect(bad.body.error.message).toMatch(/^enqueueMany item 2: job "restock"/);
    expect(await s.snapshot()).toEqual({ jobs: 0, maxId: 0 });

    const ok = await s.call('POST', '/v1/jobs/batch', { body: { jobs: [{ name: 'restock', payload: { sku: 'ab', qty: 2 } }, { name: 'other', payload: 1 }] } });
    expect(ok.status).toBe(201);
    expect((await s.queue.getJob(ok.body.jobs[0].id)).payload).toEqual({ sku: 'AB', qty: 2 });
  });

  it('POST /v1/schedules answers 400 with the issues for a refused payload, and stores none', async () => {
    const s = await serve({ queue: { jobs: [signup] } });
    const bad = await s.call('POST', '/v1/schedules', { body: { name: 'signup', cron: '0 9 * * *', payload: { email: 'nope' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'LJ_ERR_INVALID_PAYLOAD', issues: [{ message: expect.any(String), path: ['email'] }] });
    expect(bad.body.error.index).toBeUndefined();
    expect(await s.queue.schedules()).toEqual([]);
  });

  it('keeps the plain error shape for every other error', async () => {
    const s = await serve({ queue: { jobs: [signup] } });
    const badPriority = await s.call('POST', '/v1/jobs', { body: { name: 'signup', payload: { email: 'a@example.com' }, priority: 1.5 } });
    expect(badPriority.status).toBe(400);
    expect(Object.keys(badPriority.body.error).sort()).toEqual(['code', 'message']);
  });
});
