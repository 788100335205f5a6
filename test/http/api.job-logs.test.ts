/** `GET /v1/jobs/:id/logs`: a job's `ctx.log` lines over HTTP, as `queue.logs` reads them, paged; 404 and 400 in the usual error shape. */
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { useServers } from '../helpers/http-server.js';
import { nextEvent } from '../helpers/wait.js';

const serve = useServers();

describe('GET /v1/jobs/:id/logs', () => {
  it('answers the job\'s lines with their attempt, level and fields, oldest first, in pages', async () => {
    const job = defineJob({
      name: 'sync',
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 0 } },
      handler: (_p, ctx) => {
        ctx.log.info({ page: ctx.attempt }, 'fetching');
        if (ctx.attempt === 1) throw new Error('timeout');
        ctx.log.warn('done late');
      },
    });
    const s = await serve({ queue: { jobs: [job] } });
    const { body: created } = await s.call('POST', '/v1/jobs', { body: { name: 'sync' } });
    const done = nextEvent(s.queue.events$, (e) => e.job.id === created.id && e.to === 'completed');
    await s.queue.start();
    await done;

    const all = await s.call('GET', `/v1/jobs/${created.id}/logs`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      dropped: 0,
      next: null,
      lines: [
        { seq: 1, at: expect.any(String), attempt: 1, level: 'info', message: 'fetching', fields: { page: 1 } },
        { seq: 2, at: expect.any(String), attempt: 2, level: 'info', message: 'fetching', fields: { page: 2 } },
        { seq: 3, at: expect.any(String), attempt: 2, level: 'warn', message: 'done late' },
      ],
    });
    expect(new Date(all.body.lines[0].at).toISOString()).toBe(all.body.lines[0].at);

    const first = await s.call('GET', `/v1/jobs/${created.id}/logs?limit=2`);
    expect([first.body.lines.map((l: { seq: number }) => l.seq), first.body.next]).toEqual([[1, 2], 2]);
    const rest = await s.call('GET', `/v1/jobs/${created.id}/logs?after=${first.body.next}&limit=2`);
    expect([rest.body.lines.map((l: { seq: number }) => l.seq), rest.body.next]).toEqual([[3], null]);
  });

  it('404 for an unknown job, 400 for a bad query', async () => {
    const s = await serve();
    const { body: created } = await s.call('POST', '/v1/jobs', { body: { name: 'quiet' } });
    expect((await s.call('GET', `/v1/jobs/${created.id}/logs`)).body).toEqual({ lines: [], dropped: 0, next: null });
    const missing = await s.call('GET', `/v1/jobs/${created.id + 1}/logs`);
    expect([missing.status, missing.body.error.code]).toEqual([404, 'LJ_ERR_JOB_NOT_FOUND']);
    for (const query of ['limit=0', 'limit=1001', 'after=-1', 'after=x']) {
      const r = await s.call('GET', `/v1/jobs/${created.id}/logs?${query}`);
      expect([query, r.status, r.body.error.code]).toEqual([query, 400, 'LJ_ERR_VALIDATION']);
    }
    const unknown = await s.call('GET', `/v1/jobs/${created.id}/logs?page=2`);
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'LJ_ERR_UNKNOWN_OPTION']);
  });
});
