/**
 * Messages to jobs over HTTP: `POST /v1/jobs/:id/signals/:topic` (the body
 * is the message) and `POST /v1/signals/:topic` with `{ key, data }` wake a
 * job waiting on the topic or keep the message in its mailbox; a finished
 * job is a 409, a missing one a 404, bad input a 400, and nothing is stored
 * then; read-only servers and other sites are refused.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defineJob, JobState } from '../../src/index.js';
import { useServers } from '../helpers/http-server.js';
import { waitFor } from '../helpers/wait.js';

const serve = useServers();

const approval = defineJob({
  name: 'approval',
  handler: async (_: unknown, ctx) => ({ decision: await ctx.waitFor('decided') }),
});

describe('signals', () => {
  it('wakes a waiting job by id, and reaches one by its key; the body is the message', async () => {
    const s = await serve({ queue: { jobs: [approval] } });
    const { id } = await s.queue.enqueue('approval', {}, { key: 'expense:7' });
    await s.queue.start();
    await waitFor(async () => (await s.queue.getJob(id)).state === JobState.waitingMessage);
    expect(await s.call('POST', `/v1/jobs/${id}/signals/decided`, { body: { approved: true, by: 'ada' } })).toEqual({ status: 200, body: { id, woke: true } });
    expect(await s.queue.result(id, { timeout: 20_000 })).toEqual({ decision: { approved: true, by: 'ada' } });

    const second = await s.queue.enqueue('approval', {}, { key: 'expense:8' });
    // Sent before the job waits: kept, and taken by its wait.
    expect(await s.call('POST', '/v1/signals/decided', { body: { key: 'expense:8', data: 'no' } })).toEqual({ status: 200, body: { id: second.id, woke: false } });
    expect(await s.queue.result(second.id, { timeout: 20_000 })).toEqual({ decision: 'no' });
  });

  it('a message is never null, which a waiting job could not tell from its timeout: no data is {}, a null body or data is a 400', async () => {
    const s = await serve({ queue: { jobs: [approval] } });
    const first = await s.queue.enqueue('approval', {}, { key: 'expense:1' });
    const second = await s.queue.enqueue('approval', {}, { key: 'expense:2' });
    expect((await s.call('POST', `/v1/jobs/${first.id}/signals/decided`, { body: 'null' })).body.error.code).toBe('LJ_ERR_VALIDATION');
    expect((await s.call('POST', '/v1/signals/decided', { body: { key: 'expense:1', data: null } })).status).toBe(400);
    expect(Number((await s.sql<{ n: number }>('SELECT count(*) AS n FROM job_messages'))[0]!.n)).toBe(0);
    expect((await s.call('POST', '/v1/signals/decided', { body: { key: 'expense:1' } })).status).toBe(200);
    expect((await s.call('POST', `/v1/jobs/${second.id}/signals/decided`)).status).toBe(200);
    await s.queue.start();
    expect(await s.queue.result(first.id, { timeout: 20_000 })).toEqual({ decision: {} });
    expect(await s.queue.result(second.id, { timeout: 20_000 })).toEqual({ decision: {} });
    const third = await s.queue.enqueue('approval', {});
    await expect(s.queue.signal(third.id, 'decided', null)).rejects.toMatchObject({ code: 'LJ_ERR_VALIDATION' });
  });

  it('answers 409 for a finished job, 404 for a missing job or key, 400 for a bad topic or id, storing nothing', async () => {
    const s = await serve({ queue: { jobs: [defineJob({ name: 'quick', handler: async () => 1 })] } });
    const { id } = await s.queue.enqueue('quick', {});
    await s.queue.cancel(id);
    const finished = await s.call('POST', `/v1/jobs/${id}/signals/t`, { body: 1 });
    expect(finished).toMatchObject({ status: 409, body: { error: { code: 'LJ_ERR_JOB_FINISHED' } } });
    expect((await s.call('POST', '/v1/jobs/999/signals/t', { body: 1 })).body.error.code).toBe('LJ_ERR_JOB_NOT_FOUND');
    expect((await s.call('POST', '/v1/signals/t', { body: { key: 'nobody', data: 1 } })).status).toBe(404);
    for (const path of [`/v1/jobs/${id}/signals/a%00b`, `/v1/jobs/0/signals/t`, `/v1/jobs/${id}/signals/${'x'.repeat(151)}`, `/v1/jobs/${id}/signals/a%ED%A0%80`]) {
      expect((await s.call('POST', path, { body: 1 })).status, path).toBe(400);
    }
    expect((await s.call('POST', '/v1/signals/t', { body: { key: 'k', data: 1, extra: true } })).status).toBe(400);
    expect(Number((await s.sql<{ n: number }>('SELECT count(*) AS n FROM job_messages'))[0]!.n)).toBe(0);
  });

  it('takes an Idempotency-Key: the same message sent again is a duplicate, not a second message', async () => {
    const s = await serve({ queue: { jobs: [approval] } });
    const { id } = await s.queue.enqueue('approval', {}, { key: 'expense:9' });
    const headers = { 'idempotency-key': 'evt_1' };
    expect((await s.call('POST', `/v1/jobs/${id}/signals/decided`, { body: '"yes"', headers })).body).toEqual({ id, woke: false });
    expect((await s.call('POST', '/v1/signals/decided', { body: { key: 'expense:9', data: 'yes' }, headers })).body).toEqual({ id, woke: false, duplicate: true });
    expect(Number((await s.sql<{ n: number }>('SELECT count(*) AS n FROM job_messages'))[0]!.n)).toBe(1);
  });

  it('a hook with signal sends its signed body to the job holding the key it names, once per delivery id', async () => {
    const secret = 'provider-secret';
    const sign = (body: string) => createHmac('sha256', secret).update(body).digest('hex');
    const order = defineJob({ name: 'order', handler: async (_: unknown, ctx) => ({ paid: await ctx.waitFor('paid') }) });
    const s = await serve({
      queue: { jobs: [order] },
      server: { hooks: { stripe: { secret, keyHeader: 'x-event-id', signal: { topic: 'paid', jobKey: 'data.object.metadata.order_id', keyPrefix: 'order:' } } } },
    });
    const { id } = await s.queue.enqueue('order', {}, { key: 'order:42' });
    await s.queue.start();
    await waitFor(async () => (await s.queue.getJob(id)).state === JobState.waitingMessage);
    const body = JSON.stringify({ type: 'payment_intent.succeeded', data: { object: { amount: 1200, metadata: { order_id: '42' } } } });
    const forged = await s.call('POST', '/v1/hooks/stripe', { body, headers: { 'x-signature': sign(`${body} `), 'x-event-id': 'evt_1' } });
    expect([forged.status, forged.body.error.code]).toEqual([401, 'LJ_ERR_BAD_SIGNATURE']);
    const sent = await s.call('POST', '/v1/hooks/stripe', { body, headers: { 'x-signature': sign(body), 'x-event-id': 'evt_1' } });
    expect(sent).toEqual({ status: 200, body: { id, woke: true } });
    expect(await s.queue.result(id, { timeout: 20_000 })).toEqual({ paid: JSON.parse(body) });
    // The provider's retry of the same delivery: the job has finished, and no second message is made either way.
    const retried = await s.call('POST', '/v1/hooks/stripe', { body, headers: { 'x-signature': sign(body), 'x-event-id': 'evt_1' } });
    expect([retried.status, retried.body.error.code]).toEqual([409, 'LJ_ERR_JOB_FINISHED']);
    // A body naming no job, or a job that does not exist.
    const none = JSON.stringify({ data: { object: {} } });
    expect((await s.call('POST', '/v1/hooks/stripe', { body: none, headers: { 'x-signature': sign(none) } })).status).toBe(400);
    const other = JSON.stringify({ data: { object: { metadata: { order_id: 7 } } } });
    expect((await s.call('POST', '/v1/hooks/stripe', { body: other, headers: { 'x-signature': sign(other) } })).body.error.code).toBe('LJ_ERR_JOB_NOT_FOUND');
    expect((await s.snapshot()).jobs).toBe(1);
  });

  it('refuses a hook signal setting with a typo when the server starts', async () => {
    await expect(serve({ server: { hooks: { a: { signal: { topic: 'paid', jobkey: 'x' } as never } } } })).rejects.toThrow(/unknown option "jobkey"/);
    await expect(serve({ server: { hooks: { a: { signal: { topic: 'paid', jobKey: 'a..b' } } } } })).rejects.toThrow(/dotted path/);
    await expect(serve({ server: { hooks: { a: { deliverTo: 'http://127.0.0.1:9/', signal: { topic: 'paid', jobKey: 'id' } } } } })).rejects.toThrow(/one of them/);
  });

  it('refuses an Idempotency-Key a hook delivery would take (hook:, cron:), so none can be taken first, and one outside printable ASCII', async () => {
    const s = await serve({ queue: { jobs: [approval] } });
    const { id } = await s.queue.enqueue('approval', {});
    // Reserved, or outside printable ASCII (header bytes reach the server as Latin-1: stored, it would not be the key sent).
    for (const key of ['hook:stripe:evt_1', 'cron:x', 'evt_caf\u00e9', 'evt\u00ff']) {
      const r = await s.call('POST', `/v1/jobs/${id}/signals/decided`, { body: 1, headers: { 'idempotency-key': key } });
      expect([key, r.status, r.body.error?.code]).toEqual([key, 400, 'LJ_ERR_VALIDATION']);
    }
    // Any topic a handler may wait on, percent-encoded.
    expect((await s.call('POST', `/v1/jobs/${id}/signals/${encodeURIComponent('needs review: café')}`, { body: 1 })).status).toBe(200);
  });

  it('is refused by a read-only server', async () => {
    const s = await serve({ queue: { jobs: [approval] }, server: { readOnly: true } });
    const { id } = await s.queue.enqueue('approval', {});
    expect((await s.call('POST', `/v1/jobs/${id}/signals/decided`, { body: 1 })).status).toBe(403);
    expect(Number((await s.sql<{ n: number }>('SELECT count(*) AS n FROM job_messages'))[0]!.n)).toBe(0);
  });
});
