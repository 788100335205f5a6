import { describe, expect, it } from 'vitest';
import { defineJob, type HandlerContext } from '../../src/index.js';
import { useServers } from '../helpers/http-server.js';
import { events } from '../helpers/wait.js';

const serve = useServers();

describe('POST /v1/jobs and /v1/jobs/batch', () => {
  it('answers 201 once the job is committed, and 200 with the first job for the same key', async () => {
    const s = await serve();
    const first = await s.call('POST', '/v1/jobs', { body: { name: 'email', payload: { to: 'ada' }, key: 'welcome:ada', priority: 5 } });
    expect(first).toEqual({ status: 201, body: { id: 1, state: 'pending', created: true } });
    // Committed before the answer: another connection sees it at once.
    expect(await s.sql('SELECT name, payload, key, priority FROM jobs WHERE id = 1')).toEqual([{ name: 'email', payload: '{"to":"ada"}', key: 'welcome:ada', priority: 5 }]);
    const again = await s.call('POST', '/v1/jobs', { body: { name: 'email', payload: { to: 'someone else' }, key: 'welcome:ada' } });
    expect(again).toEqual({ status: 200, body: { id: 1, state: 'pending', created: false } });
    expect((await s.snapshot()).jobs).toBe(1);
  });

  it('takes lifo: the job is marked so and reads back with its run time at its creation', async () => {
    const s = await serve();
    const { body } = await s.call('POST', '/v1/jobs', { body: { name: 'a', lifo: true } });
    const job = await s.call('GET', `/v1/jobs/${body.id}`);
    expect(job.body.job).toMatchObject({ id: body.id, lifo: true, runAt: job.body.job.createdAt });
    expect((await s.call('POST', '/v1/jobs', { body: { name: 'a', lifo: 'yes' } })).status).toBe(400);
    expect((await s.call('POST', '/v1/jobs', { body: { name: 'a', lifo: true, delay: 5 } })).body).toMatchObject({ error: { code: 'LJ_ERR_VALIDATION' } });
  });

  it('takes delay and runAt (ISO date or ms)', async () => {
    const s = await serve();
    const before = Date.now();
    const delayed = await s.call('POST', '/v1/jobs', { body: { name: 'a', delay: 60_000 } });
    const at = await s.call('POST', '/v1/jobs', { body: { name: 'a', runAt: '2030-01-02T03:04:05.000Z' } });
    const atMs = await s.call('POST', '/v1/jobs', { body: { name: 'a', runAt: Date.UTC(2031, 0, 1) } });
    expect((await s.queue.getJob(delayed.body.id)).runAt.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    expect((await s.queue.getJob(at.body.id)).runAt.toISOString()).toBe('2030-01-02T03:04:05.000Z');
    expect((await s.queue.getJob(atMs.body.id)).runAt.getTime()).toBe(Date.UTC(2031, 0, 1));
    expect((await s.queue.getJob(atMs.body.id)).payload).toBeNull();
  });

  it('a batch commits all its jobs in one transaction, or none of them', async () => {
    const s = await serve();
    const ok = await s.call('POST', '/v1/jobs/batch', { body: { jobs: [{ name: 'a', payload: 1 }, { name: 'b', payload: 2, key: 'k' }] } });
    expect(ok.status).toBe(201);
    expect(ok.body.jobs).toEqual([
      { id: 1, created: true, state: 'pending' },
      { id: 2, created: true, state: 'pending' },
    ]);
    const before = await s.snapshot();
    // The second item's payload is over the engine's limit: the whole batch is refused.
    const bad = await s.call('POST', '/v1/jobs/batch', { body: { jobs: [{ name: 'a', payload: 3 }, { name: 'a', payload: 'x'.repeat(1024 * 1024 + 1) }] } });
    expect(bad.status).toBe(413);
    expect(bad.body.error.code).toBe('LJ_ERR_PAYLOAD_TOO_LARGE');
    const tooMany = await s.call('POST', '/v1/jobs/batch', { body: { jobs: Array.from({ length: 1001 }, () => ({ name: 'a' })) } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('LJ_ERR_VALIDATION');
    const oneBadName = await s.call('POST', '/v1/jobs/batch', { body: { jobs: [{ name: 'a' }, { name: 'no spaces' }] } });
    expect(oneBadName.status).toBe(400);
    expect(await s.snapshot()).toEqual(before);
    const repeat = await s.call('POST', '/v1/jobs/batch', { body: { jobs: [{ name: 'b', key: 'k' }] } });
    expect(repeat).toEqual({ status: 200, body: { jobs: [{ id: 2, created: false, state: 'pending' }] } });
  });
});

describe('unique, debounce and throttle over HTTP', () => {
  it('POST /v1/jobs and /v1/jobs/batch take them: a held key answers 200 with the first job', async () => {
    const s = await serve();
    const first = await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: 1, unique: { key: 'u', while: 'active' } } });
    expect(first).toEqual({ status: 201, body: { id: 1, state: 'pending', created: true } });
    expect(await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: 2, unique: { key: 'u', while: 'active' } } })).toEqual({ status: 200, body: { id: 1, state: 'pending', created: false } });
    const d = await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: 1, debounce: { key: 'd', ms: 60_000 } } });
    expect(await s.call('POST', '/v1/jobs', { body: { name: 'a', payload: 'last', debounce: { key: 'd', ms: 60_000 } } })).toEqual({ status: 200, body: { id: d.body.id, state: 'pending', created: false } });
    expect((await s.queue.getJob(d.body.id)).payload).toBe('last');
    const batch = await s.call('POST', '/v1/jobs/batch', { body: { jobs: [{ name: 'a', throttle: { key: 't', ms: 60_000 } }, { name: 'a', throttle: { key: 't', ms: 60_000 } }] } });
    expect(batch.status).toBe(201);
    // (PostgreSQL may skip ids that an insert of a held key drew: compare with the first's.)
    const throttled = batch.body.jobs[0].id;
    expect(batch.body.jobs).toEqual([
      { id: throttled, created: true, state: 'pending' },
      { id: throttled, created: false, state: 'pending' },
    ]);
  });
});

describe('bad input: a clear error, the engine\'s code, nothing stored', () => {
  const cases: Array<[string, string, unknown, Record<string, string> | undefined, number, string]> = [
    ['malformed JSON', '/v1/jobs', '{"name": "a",', undefined, 400, 'LJ_ERR_PAYLOAD_NOT_JSON'],
    ['an empty body', '/v1/jobs', '', { 'content-type': 'application/json' }, 400, 'LJ_ERR_VALIDATION'],
    ['a body that is not an object', '/v1/jobs', '[1,2]', undefined, 400, 'LJ_ERR_VALIDATION'],
    ['a name of the wrong type', '/v1/jobs', { name: 42 }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['a missing name', '/v1/jobs', { payload: 1 }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['an unknown field', '/v1/jobs', { name: 'a', colour: 'red' }, undefined, 400, 'LJ_ERR_UNKNOWN_OPTION'],
    ['a name with a space', '/v1/jobs', { name: 'send email' }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['a name with a slash', '/v1/jobs', { name: 'a/b' }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['a name over 128 characters', '/v1/jobs', { name: 'n'.repeat(129) }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['a negative delay', '/v1/jobs', { name: 'a', delay: -1 }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['a non-numeric delay', '/v1/jobs', { name: 'a', delay: '5s' }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['a runAt that is no date', '/v1/jobs', { name: 'a', runAt: 'tomorrow-ish' }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['a fractional priority', '/v1/jobs', { name: 'a', priority: 1.5 }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['an empty key', '/v1/jobs', { name: 'a', key: '' }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['key and unique', '/v1/jobs', { name: 'a', key: 'k', unique: { key: 'k' } }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['an unknown unique while', '/v1/jobs', { name: 'a', unique: { key: 'k', while: 'always' } }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['an unknown unique field', '/v1/jobs', { name: 'a', unique: { key: 'k', ttl: 1 } }, undefined, 400, 'LJ_ERR_UNKNOWN_OPTION'],
    ['a debounce of 0 ms', '/v1/jobs', { name: 'a', debounce: { key: 'k', ms: 0 } }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['a throttle without ms', '/v1/jobs/batch', { jobs: [{ name: 'a' }, { name: 'a', throttle: { key: 'k' } }] }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['a body over 1 MiB', '/v1/jobs', { name: 'a', payload: 'x'.repeat(1024 * 1024) }, undefined, 413, 'LJ_ERR_PAYLOAD_TOO_LARGE'],
    ['a body that is not JSON', '/v1/jobs', 'name=a', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'LJ_ERR_UNSUPPORTED_MEDIA_TYPE'],
    ['a batch without jobs', '/v1/jobs/batch', { jobs: [] }, undefined, 400, 'LJ_ERR_VALIDATION'],
    ['a batch with an unknown field', '/v1/jobs/batch', { jobs: [{ name: 'a' }], atomic: true }, undefined, 400, 'LJ_ERR_UNKNOWN_OPTION'],
  ];

  it.each(cases)('%s', async (_what, route, body, headers, status, code) => {
    const s = await serve();
    await s.call('POST', '/v1/jobs', { body: { name: 'existing' } });
    const before = await s.snapshot();
    const r = await s.call('POST', route, { body, ...(headers ? { headers } : {}) });
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect(typeof r.body.error.message).toBe('string');
    expect(r.body.error.message.length).toBeGreaterThan(0);
    expect(Object.keys(r.body)).toEqual(['error']);
    expect(await s.snapshot()).toEqual(before);
  });

  it('unknown ids are 404, ids that are not numbers 400, illegal transitions 409', async () => {
    const s = await serve();
    await s.call('POST', '/v1/jobs', { body: { name: 'a' } });
    const before = await s.snapshot();
    for (const route of ['/v1/jobs/99']) {
      const r = await s.call('GET', route);
      expect([r.status, r.body.error.code]).toEqual([404, 'LJ_ERR_JOB_NOT_FOUND']);
    }
    for (const route of ['/v1/jobs/99/retry', '/v1/jobs/99/cancel']) {
      const r = await s.call('POST', route);
      expect([r.status, r.body.error.code]).toEqual([404, 'LJ_ERR_JOB_NOT_FOUND']);
    }
    for (const route of ['/v1/jobs/abc', '/v1/jobs/0', '/v1/jobs/-1']) {
      const r = await s.call('GET', route);
      expect([r.status, r.body.error.code]).toEqual([400, 'LJ_ERR_VALIDATION']);
    }
    const notDead = await s.call('POST', '/v1/jobs/1/retry');
    expect([notDead.status, notDead.body.error.code]).toEqual([409, 'LJ_ERR_INVALID_TRANSITION']);
    const route = await s.call('GET', '/v1/nothing-here');
    expect([route.status, route.body.error.code]).toEqual([404, 'LJ_ERR_NOT_FOUND']);
    const badQuery = await s.call('GET', '/v1/jobs?limit=0');
    expect([badQuery.status, badQuery.body.error.code]).toEqual([400, 'LJ_ERR_VALIDATION']);
    const unknownQuery = await s.call('GET', '/v1/jobs?sort=desc');
    expect([unknownQuery.status, unknownQuery.body.error.code]).toEqual([400, 'LJ_ERR_UNKNOWN_OPTION']);
    expect(await s.snapshot()).toEqual(before);
    expect((await s.queue.getJob(1)).state).toBe('pending');
  });
});

describe('reading and controlling jobs', () => {
  it('GET /v1/jobs/:id gives the job and its history; GET /v1/jobs pages by keyset', async () => {
    const s = await serve();
    for (let i = 0; i < 5; i++) await s.call('POST', '/v1/jobs', { body: { name: i % 2 ? 'odd' : 'even', payload: { i } } });
    await s.call('POST', '/v1/jobs/2/cancel');
    const one = await s.call('GET', '/v1/jobs/2');
    expect(one.status).toBe(200);
    expect(one.body.job).toMatchObject({ id: 2, name: 'odd', state: 'cancelled', payload: { i: 1 } });
    expect(one.body.history.map((h: { from: string | null; to: string }) => [h.from, h.to])).toEqual([
      [null, 'pending'],
      ['pending', 'cancelled'],
    ]);
    const page1 = await s.call('GET', '/v1/jobs?name=even&limit=2');
    expect(page1.body.jobs.map((j: { id: number }) => j.id)).toEqual([1, 3]);
    expect(page1.body.next).toBe(3);
    const page2 = await s.call('GET', `/v1/jobs?name=even&limit=2&after=${page1.body.next}`);
    expect(page2.body.jobs.map((j: { id: number }) => j.id)).toEqual([5]);
    expect(page2.body.next).toBeNull();
    const cancelled = await s.call('GET', '/v1/jobs?state=cancelled');
    expect(cancelled.body.jobs.map((j: { id: number }) => j.id)).toEqual([2]);
  });

  it('GET /v1/jobs/:id/steps gives the job’s completed steps, which GET /v1/jobs/:id carries too (the dashboard’s timeline)', async () => {
    const handler = async (_p: unknown, ctx: HandlerContext) => {
      await ctx.step('fetch', () => ({ rows: 3 }));
      await ctx.step('nothing', () => undefined);
      await ctx.sleep('pause', 0);
      return 'ok';
    };
    const s = await serve({ queue: { jobs: [defineJob({ name: 'stepped', handler })] } });
    const { body } = await s.call('POST', '/v1/jobs', { body: { name: 'stepped' } });
    const done = events(s.queue.events$, (e) => e.job.id === body.id && e.to === 'completed', 1);
    await s.queue.start();
    await done;
    const r = await s.call('GET', `/v1/jobs/${body.id}/steps`);
    expect(r.status).toBe(200);
    const steps = r.body.steps as Array<Record<string, unknown>>;
    expect(steps.map(({ at, wakeAt, ...rest }) => ({ ...rest, at: typeof at, wakeAt: wakeAt === null ? null : typeof wakeAt }))).toEqual([
      { name: 'fetch', seq: 1, result: { rows: 3 }, attempt: 1, at: 'string', wakeAt: null },
      { name: 'nothing', seq: 2, attempt: 1, at: 'string', wakeAt: null },
      { name: 'pause', seq: 3, attempt: 1, at: 'string', wakeAt: 'string' },
    ]);
    expect(new Date(steps[0]!.at as string).getTime()).not.toBeNaN();
    const detail = await s.call('GET', `/v1/jobs/${body.id}`);
    expect(detail.body.steps).toEqual(steps);
    const missing = await s.call('GET', '/v1/jobs/99/steps');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'LJ_ERR_JOB_NOT_FOUND']);
    const bad = await s.call('GET', '/v1/jobs/abc/steps');
    expect([bad.status, bad.body.error.code]).toEqual([400, 'LJ_ERR_VALIDATION']);
  });

  it('retries one dead job, or all dead jobs of a name, and pauses and resumes names', async () => {
    let fail = true;
    const handler = () => {
      if (fail) throw new Error('receiver down');
      return 'ok';
    };
    const s = await serve({ queue: { jobs: ['a', 'b'].map((name) => defineJob({ name, retry: { attempts: 1 }, handler })) } });
    const dead = events(s.queue.events$, (e) => e.to === 'dead', 4);
    for (const name of ['a', 'a', 'b', 'b']) await s.call('POST', '/v1/jobs', { body: { name } });
    await s.queue.start();
    await dead;
    fail = false;
    expect(await s.call('POST', '/v1/names/a/pause')).toEqual({ status: 200, body: { name: 'a', paused: true } });
    expect(await s.call('POST', '/v1/names/b/pause')).toEqual({ status: 200, body: { name: 'b', paused: true } });
    expect((await s.call('GET', '/v1/stats')).body.paused).toEqual({ all: false, names: ['a', 'b'] });

    const one = await s.call('POST', '/v1/jobs/1/retry');
    expect(one.status).toBe(200);
    expect(one.body.job).toMatchObject({ id: 1, state: 'pending', attempts: 0 });
    expect(await s.call('POST', '/v1/jobs/retry', { body: { name: 'b' } })).toEqual({ status: 200, body: { retried: 2 } });
    expect(await s.call('POST', '/v1/jobs/retry')).toEqual({ status: 200, body: { retried: 1 } });
    const stats = await s.call('GET', '/v1/stats');
    expect(stats.body.byState).toEqual({ pending: 4 });

    const done = events(s.queue.events$, (e) => e.to === 'completed', 4);
    await s.call('POST', '/v1/names/a/resume');
    await s.call('POST', '/v1/names/b/resume');
    await done;
    expect((await s.call('GET', '/v1/stats')).body).toMatchObject({ byState: { completed: 4 }, paused: { all: false, names: [] } });
    const badName = await s.call('POST', '/v1/names/a%20b/pause');
    expect([badName.status, badName.body.error.code]).toEqual([400, 'LJ_ERR_VALIDATION']);
  });

  it('/healthz answers 200 while the database answers, 503 once it does not', async () => {
    const s = await serve();
    expect(await s.call('GET', '/healthz')).toEqual({ status: 200, body: { ok: true } });
    await s.queue.close();
    const down = await s.call('GET', '/healthz');
    expect([down.status, down.body.error.code]).toEqual([503, 'LJ_ERR_QUEUE_CLOSED']);
    const enqueue = await s.call('POST', '/v1/jobs', { body: { name: 'a' } });
    expect([enqueue.status, enqueue.body.error.code]).toEqual([503, 'LJ_ERR_QUEUE_CLOSED']);
  });
});
