/** The job actions over HTTP: delete, clean, run again, promote, retry a selection, send an event; each as the library does it. */
import { describe, expect, it } from 'vitest';
import { createQuarantineMachine } from '../../machines/examples/quarantine.machine.js';
import { defineJob } from '../../src/index.js';
import { useServers } from '../helpers/http-server.js';
import { events } from '../helpers/wait.js';

const serve = useServers();
const HOUR = 3_600_000;

describe('deleting jobs', () => {
  it('DELETE /v1/jobs/:id removes one (204), 404 when gone, 409 while it runs', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const s = await serve({ queue: { jobs: [defineJob({ name: 'hold', handler: () => held })] } });
    const { body: a } = await s.call('POST', '/v1/jobs', { body: { name: 'a', delay: HOUR } });
    expect((await s.call('DELETE', `/v1/jobs/${a.id}`)).status).toBe(204);
    expect((await s.call('GET', `/v1/jobs/${a.id}`)).status).toBe(404);
    expect((await s.call('DELETE', `/v1/jobs/${a.id}`)).body.error.code).toBe('LJ_ERR_JOB_NOT_FOUND');
    const running = events(s.queue.events$, (e) => e.to === 'processing', 1);
    const { body: h } = await s.call('POST', '/v1/jobs', { body: { name: 'hold' } });
    await s.queue.start();
    await running;
    const busy = await s.call('DELETE', `/v1/jobs/${h.id}`);
    expect([busy.status, busy.body.error.code]).toEqual([409, 'LJ_ERR_INVALID_TRANSITION']);
    release();
  });

  it('POST /v1/jobs/delete removes a selection and lists what it left; /v1/jobs/clean a state older than an age or a date', async () => {
    const s = await serve();
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push((await s.call('POST', '/v1/jobs', { body: { name: i < 2 ? 'a' : 'b' } })).body.id);
    const sel = await s.call('POST', '/v1/jobs/delete', { body: { ids: [ids[0], 999_999] } });
    expect(sel.body).toMatchObject({ removed: [ids[0]], skipped: [{ id: 999_999, code: 'LJ_ERR_JOB_NOT_FOUND' }] });
    expect((await s.call('POST', '/v1/jobs/clean', { body: { state: 'pending', name: 'b', olderThan: 0 } })).body).toEqual({ removed: 2 });
    expect((await s.call('POST', '/v1/jobs/clean', { body: { state: 'pending', olderThan: '7d' } })).body).toEqual({ removed: 0 });
    expect((await s.call('POST', '/v1/jobs/clean', { body: { state: 'pending', olderThan: new Date(Date.now() + 1000).toISOString() } })).body).toEqual({ removed: 1 });
    for (const body of [{ state: 'processing', olderThan: 0 }, { state: 'dead', olderThan: 'yesterday' }, { state: 'dead' }, { state: 'dead', olderThan: 0, extra: 1 }]) {
      const r = await s.call('POST', '/v1/jobs/clean', { body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
    }
  });
});

describe('run again, promote, retry a selection, send an event', () => {
  it('runs a completed job again, promotes a delayed one, retries the dead ones selected', async () => {
    let fail = true;
    const s = await serve({
      queue: {
        jobs: [
          defineJob({ name: 'ok', handler: () => 'done' }),
          defineJob({ name: 'bad', retry: { attempts: 1 }, handler: () => { if (fail) throw new Error('no'); return 'fixed'; } }),
        ],
      },
    });
    const finished = events(s.queue.events$, (e) => e.to === 'completed' || e.to === 'dead', 2);
    const { body: ok } = await s.call('POST', '/v1/jobs', { body: { name: 'ok' } });
    const { body: bad } = await s.call('POST', '/v1/jobs', { body: { name: 'bad' } });
    await s.queue.start();
    await finished;
    fail = false;
    const again = events(s.queue.events$, (e) => e.to === 'completed', 2);
    const r = await s.call('POST', `/v1/jobs/${ok.id}/run-again`);
    expect(r.status).toBe(200);
    const retried = await s.call('POST', '/v1/jobs/retry', { body: { ids: [bad.id, ok.id] } });
    expect(retried.body).toMatchObject({ retried: 1, skipped: [{ id: ok.id, code: 'LJ_ERR_INVALID_TRANSITION' }] });
    await again;
    expect((await s.call('GET', `/v1/jobs/${ok.id}`)).body.history.map((h: { event: string }) => h.event)).toContain('job.rerun');
    expect((await s.call('POST', '/v1/jobs/retry', { body: { ids: [bad.id], name: 'bad' } })).status).toBe(400);

    const { body: later } = await s.call('POST', '/v1/jobs', { body: { name: 'ok', delay: HOUR } });
    const done = events(s.queue.events$, (e) => e.job.id === later.id && e.to === 'completed', 1);
    const promoted = await s.call('POST', `/v1/jobs/${later.id}/promote`);
    expect(promoted.status).toBe(200);
    await done;
    expect((await s.call('POST', `/v1/jobs/${later.id}/promote`)).status).toBe(409);
  });

  it('GET /v1/jobs/:id lists the events the job accepts now; POST /v1/jobs/:id/events sends one (a custom machine\'s too)', async () => {
    const s = await serve({ queue: { jobs: [defineJob({ name: 'import', machine: createQuarantineMachine(), handler: () => 'ok' })] } });
    const { body: job } = await s.call('POST', '/v1/jobs', { body: { name: 'import', delay: HOUR } });
    expect((await s.call('GET', `/v1/jobs/${job.id}`)).body.events.sort()).toEqual(['job.cancel', 'job.promote']);
    await s.sql("UPDATE jobs SET state = 'quarantined', version = version + 1 WHERE id = ?", [job.id]);
    expect((await s.call('GET', `/v1/jobs/${job.id}`)).body.events.sort()).toEqual(['job.approve', 'job.cancel']);
    const approved = await s.call('POST', `/v1/jobs/${job.id}/events`, { body: { type: 'job.approve' } });
    expect([approved.status, approved.body.job.state]).toEqual([200, 'pending']);
    const refused = await s.call('POST', `/v1/jobs/${job.id}/events`, { body: { type: 'job.approve' } });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'LJ_ERR_INVALID_TRANSITION']);
    const runtime = await s.call('POST', `/v1/jobs/${job.id}/events`, { body: { type: 'job.complete' } });
    expect([runtime.status, runtime.body.error.code]).toEqual([400, 'LJ_ERR_VALIDATION']);
    expect((await s.call('POST', `/v1/jobs/${job.id}/events`, { body: {} })).status).toBe(400);
  });

  it('PATCH /v1/jobs/:id changes a pending job (priority, runAt, delay, payload); 409 once it is not pending, 400 for a bad body', async () => {
    const s = await serve();
    const { body: job } = await s.call('POST', '/v1/jobs', { body: { name: 'mail', delay: HOUR, payload: { to: 'a' } } });
    const at = new Date(Date.now() + 2 * HOUR).toISOString();
    const r = await s.call('PATCH', `/v1/jobs/${job.id}`, { body: { priority: 3, runAt: at, payload: { to: 'b' } } });
    expect(r.status).toBe(200);
    expect(r.body.job).toMatchObject({ state: 'pending', priority: 3, runAt: at, payload: { to: 'b' } });
    for (const body of [{}, { colour: 'red' }, { runAt: 'tomorrow' }, { priority: 'high' }]) {
      expect([JSON.stringify(body), (await s.call('PATCH', `/v1/jobs/${job.id}`, { body })).status]).toEqual([JSON.stringify(body), 400]);
    }
    await s.call('POST', `/v1/jobs/${job.id}/cancel`);
    expect((await s.call('PATCH', `/v1/jobs/${job.id}`, { body: { priority: 1 } })).status).toBe(409);
  });
});

