/** The dashboard's reads and bulk actions over HTTP, and read-only mode on every action route. */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createQuarantineMachine } from '../../machines/examples/quarantine.machine.js';
import { litejobsHttp } from '../../src/http/index.js';
import { createQueue, defineJob, UnrecoverableError } from '../../src/index.js';
import { useServers } from '../helpers/http-server.js';
import { MADE_UP_JOBS, makeUpNames } from '../helpers/made-up-names.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { events } from '../helpers/wait.js';

const serve = useServers();

const doomed = defineJob({
  name: 'charge',
  handler: async () => {
    throw new UnrecoverableError('card declined');
  },
});
const importJob = defineJob({ name: 'import', machine: createQuarantineMachine, handler: async () => 'ok' });

/** A served queue holding dead `charge` jobs, one per customer given. */
async function withDeadJobs(customers: number[], server: { readOnly?: boolean } = {}) {
  const s = await serve({ queue: { jobs: [doomed, importJob], concurrency: 4 }, server });
  const ids = (await s.queue.enqueueMany(customers.map((customer) => ({ name: 'charge' as const, payload: { customer } })))).map((r) => r.id);
  const dead = events(s.queue.events$, (e) => e.to === 'dead', customers.length);
  await s.queue.start();
  await dead;
  await s.queue.stop();
  return { s, ids };
}

describe('GET /v1/dashboard', () => {
  it('draws the base machine for every name, and a machine of the user’s own as a chart of its own', async () => {
    const s = await serve({ queue: { jobs: [doomed, importJob] } });
    await s.queue.enqueue('elsewhere', {});
    const r = await s.call('GET', '/v1/dashboard');
    expect(r.status).toBe(200);
    expect(r.body.readOnly).toBe(false);
    expect(r.body.names).toEqual(['charge', 'elsewhere', 'import']);
    expect(r.body.paused).toEqual({ all: false, names: [] });
    const [base, own] = r.body.graphs;
    expect(r.body.graphs).toHaveLength(2);
    expect(base).toMatchObject({ id: 'job', names: null });
    expect(own.names).toEqual(['import']);
    expect(own.graph.states.map((st: { id: string }) => st.id)).toContain('quarantined');
    expect(base.graph.states.map((st: { id: string }) => st.id)).not.toContain('quarantined');
    for (const chart of r.body.graphs) {
      for (const direction of ['RIGHT', 'DOWN']) {
        const layout = chart.layouts[direction];
        expect(layout.states.map((p: { state: { id: string } }) => p.state.id)).toEqual(chart.graph.states.map((st: { id: string }) => st.id));
        expect(layout.edges).toHaveLength(chart.graph.edges.length);
        expect(layout.width).toBeGreaterThan(0);
      }
    }
  });
});

describe('GET /v1/dashboard/jobs', () => {
  it('pages a state by cursor, filters by payload, and answers bad input with a 400 and its code', async () => {
    const s = await serve();
    const ids = (await s.queue.enqueueMany(Array.from({ length: 5 }, (_, i) => ({ name: 'a', payload: { customer: i % 2 } })))).map((r) => r.id);
    const first = await s.call('GET', '/v1/dashboard/jobs?state=pending&limit=3');
    expect(first.status).toBe(200);
    expect(first.body.jobs.map((j: { id: number }) => j.id)).toEqual(ids.slice(0, 3));
    const second = await s.call('GET', `/v1/dashboard/jobs?state=pending&limit=3&cursor=${first.body.next}`);
    expect(second.body).toMatchObject({ next: null });
    expect(second.body.jobs.map((j: { id: number }) => j.id)).toEqual(ids.slice(3));
    expect(second.body.jobs[0]).toMatchObject({ name: 'a', state: 'pending', attempts: 0, error: null, payload: '{"customer":1}' });

    const found = await s.call('GET', `/v1/dashboard/jobs?state=pending&where=${encodeURIComponent('payload.customer = 1')}`);
    expect(found.body.jobs.map((j: { id: number }) => j.id)).toEqual([ids[1], ids[3]]);

    for (const [query, code] of [
      ['state=pending&where=customer%3D1', 'LJ_ERR_VALIDATION'],
      ['state=pending&cursor=xyz', 'LJ_ERR_VALIDATION'],
      ['where=payload.a%3D1', 'LJ_ERR_VALIDATION'],
      ['state=pending&limit=501', 'LJ_ERR_VALIDATION'],
      ['state=pending&sort=id', 'LJ_ERR_UNKNOWN_OPTION'],
    ]) {
      const r = await s.call('GET', `/v1/dashboard/jobs?${query}`);
      expect([query, r.status, r.body.error?.code]).toEqual([query, 400, code]);
    }
  });
});

describe('bulk actions', () => {
  it('POST /v1/jobs/cancel cancels what it can and says why it skipped the rest', async () => {
    const { s, ids } = await withDeadJobs([1]);
    const pending = (await s.queue.enqueueMany([{ name: 'charge', payload: {} }, { name: 'charge', payload: {} }])).map((r) => r.id);
    const r = await s.call('POST', '/v1/jobs/cancel', { body: { ids: [pending[0], ids[0], 999_999, pending[1]] } });
    expect(r.status).toBe(200);
    expect(r.body.cancelled).toEqual([pending[0], pending[1]]);
    expect(r.body.skipped.map((x: { id: number; code: string }) => [x.id, x.code])).toEqual([
      [ids[0], 'LJ_ERR_INVALID_TRANSITION'],
      [999_999, 'LJ_ERR_JOB_NOT_FOUND'],
    ]);
    expect((await s.queue.getJob(pending[0]!)).state).toBe('cancelled');
    expect((await s.queue.getJob(ids[0]!)).state).toBe('dead');
    for (const body of [{ ids: [] }, { ids: [1, 1] }, { ids: ['1'] }, { ids: Array.from({ length: 1001 }, (_, i) => i + 1) }]) {
      expect((await s.call('POST', '/v1/jobs/cancel', { body })).body.error.code).toBe('LJ_ERR_VALIDATION');
    }
  });

  it('POST /v1/jobs/retry with a search retries only the dead jobs it matches', async () => {
    const { s, ids } = await withDeadJobs([1, 2, 3, 2]);
    const r = await s.call('POST', '/v1/jobs/retry', { body: { where: 'payload.customer = 2' } });
    expect(r).toEqual({ status: 200, body: { retried: 2 } });
    const states = await Promise.all(ids.map(async (id) => (await s.queue.getJob(id)).state));
    expect(states).toEqual(['dead', 'pending', 'dead', 'pending']);
    expect((await s.call('POST', '/v1/jobs/retry', { body: { where: 'payload.customer = 9', name: 'charge' } })).body).toEqual({ retried: 0 });
    expect((await s.call('POST', '/v1/jobs/retry', { body: { where: 'customer = 1' } })).body.error.code).toBe('LJ_ERR_VALIDATION');
    expect((await s.queue.getJob(ids[0]!)).state).toBe('dead');
  });
});

describe('read-only', () => {
  it('refuses every route that would change something with 403 (actions, enqueueing, hooks) and changes nothing; reads work', async () => {
    // Every route but the reads, as the plugin registers them: a new write cannot be left open unnoticed.
    const writes: string[] = [];
    const probe = Fastify();
    probe.addHook('onRoute', (r) => {
      for (const method of [r.method].flat()) if (!['GET', 'HEAD', 'OPTIONS'].includes(method)) writes.push(`${method} ${r.url}`);
    });
    const db = tempDbPath();
    const probeQueue = createQueue({ path: db.path, logger: silentLogger });
    await probe.register(litejobsHttp, { queue: probeQueue });
    await probe.ready();
    await probe.close();
    await probeQueue.close();
    db.cleanup();
    expect(writes.sort()).toEqual([
      'DELETE /v1/jobs/:id',
      'DELETE /v1/names/:name/limits',
      'DELETE /v1/schedules/:name',
      'PATCH /v1/jobs/:id',
      'POST /v1/batches',
      'POST /v1/flows',
      'POST /v1/hooks/:name',
      'POST /v1/jobs',
      'POST /v1/jobs/:id/cancel',
      'POST /v1/jobs/:id/events',
      'POST /v1/jobs/:id/promote',
      'POST /v1/jobs/:id/retry',
      'POST /v1/jobs/:id/run-again',
      'POST /v1/jobs/:id/signals/:topic',
      'POST /v1/jobs/batch',
      'POST /v1/jobs/cancel',
      'POST /v1/jobs/clean',
      'POST /v1/jobs/delete',
      'POST /v1/jobs/retry',
      'POST /v1/names/:name/pause',
      'POST /v1/names/:name/resume',
      'POST /v1/schedules',
      'POST /v1/signals/:topic',
      'PUT /v1/groups/:group/concurrency',
      'PUT /v1/names/:name/limits',
    ]);

    const { s, ids } = await withDeadJobs([1], { readOnly: true });
    const pending = (await s.queue.enqueue('charge', {})).id;
    const before = await s.queue.stats();
    const bodies: Record<string, unknown> = {
      'POST /v1/jobs': { name: 'charge' },
      'POST /v1/jobs/batch': { jobs: [{ name: 'charge' }] },
      'POST /v1/flows': { name: 'charge', children: [{ name: 'charge' }] },
      'POST /v1/batches': { jobs: [{ name: 'charge' }], onComplete: { name: 'charge' } },
      'POST /v1/hooks/:name': { paid: true },
      'POST /v1/jobs/cancel': { ids: [pending] },
      'POST /v1/jobs/retry': {},
      'POST /v1/jobs/delete': { ids: [pending] },
      'POST /v1/jobs/clean': { state: 'pending', olderThan: 0 },
      'POST /v1/jobs/:id/events': { type: 'job.cancel' },
      'PATCH /v1/jobs/:id': { priority: 2 },
      'POST /v1/schedules': { name: 'charge', cron: '* * * * *' },
      'PUT /v1/groups/:group/concurrency': { concurrency: 2 },
      'PUT /v1/names/:name/limits': { globalConcurrency: 2 },
      'POST /v1/signals/:topic': { key: 'k', data: 1 },
    };
    for (const write of writes) {
      const [method, url] = write.split(' ') as [string, string];
      const route = url.replace(':id', String(url.includes('retry') ? ids[0] : pending)).replace(':name', 'charge').replace(':group', 'g').replace(':topic', 't');
      const r = await s.call(method, route, bodies[write] === undefined ? {} : { body: bodies[write] });
      expect([write, r.status, r.body.error?.code]).toEqual([write, 403, 'LJ_ERR_READ_ONLY']);
    }
    expect(await s.queue.stats()).toEqual(before);
    expect((await s.queue.limits()).groups).toEqual([]);
    expect((await s.queue.limits()).names.some((n) => n.changed !== undefined)).toBe(false);
    expect((await s.call('GET', '/v1/dashboard')).body.readOnly).toBe(true);
    expect((await s.call('GET', '/v1/dashboard/jobs?state=dead')).body.jobs.map((j: { id: number }) => j.id)).toEqual(ids);
  });
});

describe('made-up names', () => {
  it('the live counts, the names list and the paused names are bounded: the queue\'s own always, then the most jobs, the rest summed as (other)', async () => {
    const s = await serve({ queue: { jobs: [defineJob({ name: 'own', handler: () => undefined })] } });
    const made = await makeUpNames(s.queue);
    for (const name of made.slice(0, 110)) await s.queue.pause(name);
    await s.queue.pause('own');
    let counts = (await s.call('GET', '/v1/dashboard/counts')).body;
    for (const end = Date.now() + 10_000; (counts.seeding || counts.total < MADE_UP_JOBS) && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 50));
      counts = (await s.call('GET', '/v1/dashboard/counts')).body;
    }
    expect(counts.total).toBe(MADE_UP_JOBS);
    const pending = counts.names.pending as Record<string, number>;
    expect(Object.keys(pending)).toHaveLength(101);
    expect(pending.own).toBe(1);
    expect(pending['(other)']).toBe(MADE_UP_JOBS - 1 - 2 * 99);
    expect(Object.values(pending).reduce((a, b) => a + b, 0)).toBe(MADE_UP_JOBS);
    const dashboard = (await s.call('GET', '/v1/dashboard')).body;
    expect(dashboard.names).toContain('own');
    expect(dashboard.names).not.toContain('(other)');
    expect(dashboard.names.length).toBeLessThanOrEqual(101);
    expect(dashboard.paused.names).toHaveLength(100);
    expect(dashboard.paused.names).toContain('own');
    expect(dashboard.paused.more).toBe(11);
    // The backlog chart's names likewise: each sample of the hour holds at most the names the counts list.
    let series = (await s.call('GET', '/v1/dashboard/series')).body;
    for (const end = Date.now() + 10_000; Object.keys(series.backlog.names).length === 0 && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 50));
      series = (await s.call('GET', '/v1/dashboard/series')).body;
    }
    const backlog = series.backlog.names as Record<string, number[]>;
    expect(Object.keys(backlog).length).toBeGreaterThan(1);
    expect(Object.keys(backlog).length).toBeLessThanOrEqual(101);
    expect(backlog['(other)']).toBeDefined();
    expect(Object.values(backlog).reduce((sum, points) => sum + points.at(-1)!, 0)).toBe(MADE_UP_JOBS);
  });
});
