/**
 * Messages to jobs over HTTP: `POST /v1/jobs/:id/signals/:topic` (the body
 * is the message) and `POST /v1/signals/:topic` with `{ key, data }` wake a
 * job waiting on the topic or keep the message in its mailbox; a finished
 * job is a 409, a missing one a 404, bad input a 400, and nothing is stored
 * then; read-only servers and other sites are refused.
 */
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

  it('answers 409 for a finished job, 404 for a missing job or key, 400 for a bad topic or id, storing nothing', async () => {
    const s = await serve({ queue: { jobs: [defineJob({ name: 'quick', handler: async () => 1 })] } });
    const { id } = await s.queue.enqueue('quick', {});
    await s.queue.cancel(id);
    const finished = await s.call('POST', `/v1/jobs/${id}/signals/t`, { body: 1 });
    expect(finished).toMatchObject({ status: 409, body: { error: { code: 'LJ_ERR_JOB_FINISHED' } } });
    expect((await s.call('POST', '/v1/jobs/999/signals/t', { body: 1 })).body.error.code).toBe('LJ_ERR_JOB_NOT_FOUND');
    expect((await s.call('POST', '/v1/signals/t', { body: { key: 'nobody', data: 1 } })).status).toBe(404);
    for (const path of [`/v1/jobs/${id}/signals/a%20b`, `/v1/jobs/0/signals/t`, `/v1/jobs/${id}/signals/${'x'.repeat(129)}`]) {
      expect((await s.call('POST', path, { body: 1 })).status, path).toBe(400);
    }
    expect((await s.call('POST', '/v1/signals/t', { body: { key: 'k', data: 1, extra: true } })).status).toBe(400);
    expect(Number((await s.sql<{ n: number }>('SELECT count(*) AS n FROM job_messages'))[0]!.n)).toBe(0);
  });

  it('is refused by a read-only server', async () => {
    const s = await serve({ queue: { jobs: [approval] }, server: { readOnly: true } });
    const { id } = await s.queue.enqueue('approval', {});
    expect((await s.call('POST', `/v1/jobs/${id}/signals/decided`, { body: 1 })).status).toBe(403);
    expect(Number((await s.sql<{ n: number }>('SELECT count(*) AS n FROM job_messages'))[0]!.n)).toBe(0);
  });
});
