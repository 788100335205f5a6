/**
 * Concurrency groups and limits over HTTP: `group` on enqueue (one job or a
 * batch) and in job answers, `GET /v1/limits` as queue.limits() shows it
 * (dates as ISO text), and `PUT /v1/groups/:group/concurrency`, an action
 * the claims follow at once; bad input is refused with the engine's codes
 * and changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { defineJob, RateLimitedError } from '../../src/index.js';
import { useServers } from '../helpers/http-server.js';
import { nextEvent, transitions$, waitFor } from '../helpers/wait.js';

const serve = useServers();

/** queue.limits() as JSON carries it: what the route must answer. */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('group on enqueue', () => {
  it('POST /v1/jobs and /v1/jobs/batch take a group; GET /v1/jobs/:id and GET /v1/jobs show it', async () => {
    const s = await serve();
    const one = await s.call('POST', '/v1/jobs', { body: { name: 'sync', payload: 1, group: 'customer:42' } });
    expect(one).toEqual({ status: 201, body: { id: 1, state: 'pending', created: true } });
    const batch = await s.call('POST', '/v1/jobs/batch', { body: { jobs: [{ name: 'sync', group: 'customer/7 ü' }, { name: 'sync' }] } });
    expect(batch.status).toBe(201);
    const [grouped, plain] = batch.body.jobs.map((j: { id: number }) => j.id);

    expect((await s.queue.getJob(1)).group).toBe('customer:42');
    const detail = await s.call('GET', '/v1/jobs/1');
    expect(detail.body.job).toMatchObject({ id: 1, name: 'sync', group: 'customer:42' });
    expect((await s.call('GET', `/v1/jobs/${grouped}`)).body.job.group).toBe('customer/7 ü');
    expect((await s.call('GET', `/v1/jobs/${plain}`)).body.job).not.toHaveProperty('group');
    const listed = await s.call('GET', '/v1/jobs?name=sync');
    expect(listed.body.jobs.map((j: { group?: string }) => j.group ?? null)).toEqual(['customer:42', 'customer/7 ü', null]);
  });

  it.each([
    ['an empty group', { name: 'a', group: '' }, 'LJ_ERR_VALIDATION'],
    ['a group that is not a string', { name: 'a', group: 42 }, 'LJ_ERR_VALIDATION'],
    ['a group over 200 characters', { name: 'a', group: 'g'.repeat(201) }, 'LJ_ERR_VALIDATION'],
    ['a group with a NUL', { name: 'a', group: 'a\u0000b' }, 'LJ_ERR_VALIDATION'],
  ])('refuses %s with a 400, one job or in a batch, and stores nothing', async (_what, job, code) => {
    const s = await serve();
    await s.call('POST', '/v1/jobs', { body: { name: 'existing', group: 'g' } });
    const before = await s.snapshot();
    for (const [route, body] of [
      ['/v1/jobs', job],
      ['/v1/jobs/batch', { jobs: [{ name: 'a', group: 'fine' }, job] }],
    ] as const) {
      const r = await s.call('POST', route, { body });
      expect([route, r.status, r.body.error?.code]).toEqual([route, 400, code]);
      expect(Object.keys(r.body)).toEqual(['error']);
      expect(r.body.error.message).toMatch(/group/);
    }
    expect(await s.snapshot()).toEqual(before);
  });
});

describe('GET /v1/limits', () => {
  it('lists the limited names and the groups with their running and pending jobs; PUT a group concurrency and claims follow it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Counted where the handler runs: a claimed job may still be handed back unstarted (past its
    // rate-limit start deadline on a busy machine), and is then claimed again, spending another token.
    const started = new Set<number>();
    const sync = defineJob({
      name: 'sync',
      groupConcurrency: 1,
      globalConcurrency: 5,
      rateLimit: { max: 100, per: '1m' },
      handler: (_payload, ctx) => {
        started.add(ctx.jobId);
        return held;
      },
    });
    let limited = false;
    const api = defineJob({
      name: 'api',
      handler: () => {
        if (!limited) {
          limited = true;
          throw new RateLimitedError(60_000);
        }
      },
    });
    const s = await serve({ queue: { concurrency: 4, jobs: [sync, api] } });
    try {
      expect(await s.call('GET', '/v1/limits')).toEqual({
        status: 200,
        body: { names: [{ name: 'sync', groupConcurrency: 1, globalConcurrency: 5, rateLimit: { max: 100, perMs: 60_000, perGroup: false }, running: 0, tokensLeft: 100, pausedUntil: null }], groups: [] },
      });
      for (const group of ['customer:1', 'customer:1', 'customer:1', 'customer:2']) {
        expect((await s.call('POST', '/v1/jobs', { body: { name: 'sync', group } })).status).toBe(201);
      }
      const vendor = await s.call('POST', '/v1/jobs', { body: { name: 'api', group: 'vendor' } });
      const paused = nextEvent(s.queue.events$, (e) => e.job.id === vendor.body.id && e.from === 'processing' && e.to === 'pending');
      let claims = 0;
      transitions$(s.queue.events$).subscribe((e) => {
        if (e.to === 'processing' && e.job.name === 'sync') claims += 1;
      });
      await s.queue.start();
      await paused;
      // One job of each group runs; the rest of customer:1 waits for its concurrency of 1.
      await waitFor(() => started.size === 2);

      const view = await s.call('GET', '/v1/limits');
      expect(view.status).toBe(200);
      expect(view.body).toEqual(asJson(await s.queue.limits()));
      expect(view.body.names).toEqual([
        { name: 'sync', groupConcurrency: 1, globalConcurrency: 5, rateLimit: { max: 100, perMs: 60_000, perGroup: false }, running: 2, tokensLeft: 100 - claims, pausedUntil: null },
      ]);
      expect(claims).toBeGreaterThanOrEqual(2);
      const vendorRow = view.body.groups.find((g: { group: string }) => g.group === 'vendor');
      expect(view.body.groups.filter((g: { group: string }) => g.group !== 'vendor')).toEqual([
        { group: 'customer:1', pending: 2, running: 1, concurrency: null, pausedUntil: null },
        { group: 'customer:2', pending: 0, running: 1, concurrency: null, pausedUntil: null },
      ]);
      // Paused by the handler's RateLimitedError for a minute: the date as ISO 8601 text.
      expect(vendorRow).toEqual({ group: 'vendor', pending: 1, running: 0, concurrency: null, pausedUntil: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
      expect(Date.parse(vendorRow.pausedUntil) - Date.now()).toBeGreaterThan(30_000);

      // The group's own concurrency wins over the definition's: a second job of customer:1 starts.
      expect(await s.call('PUT', '/v1/groups/customer%3A1/concurrency', { body: { concurrency: 2 } })).toEqual({ status: 200, body: { group: 'customer:1', concurrency: 2 } });
      await waitFor(() => started.size === 3);
      const after = (await s.call('GET', '/v1/limits')).body;
      expect(after.groups[0]).toEqual({ group: 'customer:1', pending: 1, running: 2, concurrency: 2, pausedUntil: null });
    } finally {
      release();
    }
  });
});

describe('made-up names and groups', () => {
  it('GET /v1/limits lists the names the queue defines, others up to 100 names, and 200 groups, and counts the rest', async () => {
    const s = await serve({ queue: { jobs: [defineJob({ name: 'own', globalConcurrency: 2, handler: () => undefined })] } });
    for (let i = 0; i < 130; i++) await s.queue.setLimits(`made-${i}`, { globalConcurrency: 1 });
    for (let i = 0; i < 230; i++) await s.queue.setGroupConcurrency(`g-${i}`, 1);
    const limits = await s.call('GET', '/v1/limits');
    expect(limits.status).toBe(200);
    expect(limits.body.names).toHaveLength(100);
    expect(limits.body.names.map((n: { name: string }) => n.name)).toContain('own');
    expect(limits.body.groups).toHaveLength(200);
    expect(limits.body.more).toEqual({ names: 31, groups: 30 });
    // A name past the bound is still answered for when it is the one changed.
    expect((await s.call('PUT', '/v1/names/made-99/limits', { body: { globalConcurrency: 3 } })).body).toMatchObject({ name: 'made-99', globalConcurrency: 3 });
  });
});

describe('PUT /v1/groups/:group/concurrency', () => {
  it('sets a group concurrency (listed even without jobs) and null removes it; the group is taken from the URL decoded', async () => {
    const s = await serve();
    expect(await s.call('PUT', '/v1/groups/tenant%2F7%20eu/concurrency', { body: { concurrency: 3 } })).toEqual({ status: 200, body: { group: 'tenant/7 eu', concurrency: 3 } });
    expect(await s.call('PUT', '/v1/groups/plain/concurrency', { body: { concurrency: 1_000_000 } })).toMatchObject({ status: 200 });
    expect((await s.call('GET', '/v1/limits')).body).toEqual({
      names: [],
      groups: [
        { group: 'plain', pending: 0, running: 0, concurrency: 1_000_000, pausedUntil: null },
        { group: 'tenant/7 eu', pending: 0, running: 0, concurrency: 3, pausedUntil: null },
      ],
    });
    expect(await s.call('PUT', '/v1/groups/tenant%2F7%20eu/concurrency', { body: { concurrency: null } })).toEqual({ status: 200, body: { group: 'tenant/7 eu', concurrency: null } });
    expect((await s.queue.limits()).groups.map((g) => g.group)).toEqual(['plain']);
    // The longest group, of characters that take 9 each percent-encoded, fits in the URL.
    const longest = '€'.repeat(200);
    expect(await s.call('PUT', `/v1/groups/${encodeURIComponent(longest)}/concurrency`, { body: { concurrency: 4 } })).toEqual({ status: 200, body: { group: longest, concurrency: 4 } });
    expect((await s.queue.limits()).groups.find((g) => g.group === longest)?.concurrency).toBe(4);
  });

  it.each([
    ['a concurrency of 0', '/v1/groups/g/concurrency', { concurrency: 0 }, 'LJ_ERR_VALIDATION'],
    ['a fractional concurrency', '/v1/groups/g/concurrency', { concurrency: 1.5 }, 'LJ_ERR_VALIDATION'],
    ['a concurrency over 1,000,000', '/v1/groups/g/concurrency', { concurrency: 1_000_001 }, 'LJ_ERR_VALIDATION'],
    ['a concurrency as text', '/v1/groups/g/concurrency', { concurrency: '3' }, 'LJ_ERR_VALIDATION'],
    ['a missing concurrency', '/v1/groups/g/concurrency', {}, 'LJ_ERR_VALIDATION'],
    ['no body', '/v1/groups/g/concurrency', undefined, 'LJ_ERR_VALIDATION'],
    ['an unknown field', '/v1/groups/g/concurrency', { concurrency: 2, burst: 1 }, 'LJ_ERR_UNKNOWN_OPTION'],
    ['a group with a NUL', '/v1/groups/a%00b/concurrency', { concurrency: 2 }, 'LJ_ERR_VALIDATION'],
    ['a group over 200 characters', `/v1/groups/${'g'.repeat(201)}/concurrency`, { concurrency: 2 }, 'LJ_ERR_VALIDATION'],
  ])('refuses %s with a 400 and stores nothing', async (_what, route, body, code) => {
    const s = await serve();
    await s.queue.setGroupConcurrency('g', 5);
    const before = await s.queue.limits();
    const r = await s.call('PUT', route, body === undefined ? {} : { body });
    expect([r.status, r.body.error?.code]).toEqual([400, code]);
    expect(Object.keys(r.body)).toEqual(['error']);
    expect(await s.queue.limits()).toEqual(before);
  });

  it('a read-only server lists limits and refuses the change', async () => {
    const s = await serve({ server: { readOnly: true } });
    await s.queue.setGroupConcurrency('g', 2);
    const r = await s.call('PUT', '/v1/groups/g/concurrency', { body: { concurrency: null } });
    expect([r.status, r.body.error.code]).toEqual([403, 'LJ_ERR_READ_ONLY']);
    expect((await s.call('GET', '/v1/limits')).body.groups).toEqual([{ group: 'g', pending: 0, running: 0, concurrency: 2, pausedUntil: null }]);
  });

  it('needs the token like every other action', async () => {
    const s = await serve({ server: { token: 'limits-token-0123' } });
    expect((await s.call('PUT', '/v1/groups/g/concurrency', { body: { concurrency: 2 } })).status).toBe(401);
    expect((await s.call('GET', '/v1/limits')).status).toBe(401);
    expect((await s.queue.limits()).groups).toEqual([]);
    const auth = { authorization: 'Bearer limits-token-0123' };
    expect((await s.call('PUT', '/v1/groups/g/concurrency', { body: { concurrency: 2 }, headers: auth })).status).toBe(200);
    expect((await s.call('GET', '/v1/limits', { headers: auth })).body.groups).toEqual([{ group: 'g', pending: 0, running: 0, concurrency: 2, pausedUntil: null }]);
  });
});

describe('PUT and DELETE /v1/names/:name/limits', () => {
  it("changes a name's limits over its definition's, null turning one off, and DELETE gives the definition's back", async () => {
    const s = await serve({ queue: { jobs: [defineJob({ name: 'mail', globalConcurrency: 2, handler: () => 1 })] } });
    const set = await s.call('PUT', '/v1/names/mail/limits', { body: { rateLimit: { max: 50, per: '1s' }, globalConcurrency: null } });
    expect(set).toMatchObject({ status: 200, body: { name: 'mail', globalConcurrency: null, rateLimit: { max: 50, perMs: 1000, perGroup: false }, changed: { rateLimit: { max: 50, perMs: 1000, perGroup: false }, globalConcurrency: null } } });
    expect((await s.call('GET', '/v1/limits')).body.names).toEqual([asJson((await s.queue.limits()).names[0])]);
    const reset = await s.call('DELETE', '/v1/names/mail/limits');
    expect(reset).toMatchObject({ status: 200, body: { name: 'mail', globalConcurrency: 2, rateLimit: null } });
    expect(reset.body).not.toHaveProperty('changed');
  });

  it.each([
    ['no limit named', {}, 'LJ_ERR_VALIDATION'],
    ['a concurrency of 0', { globalConcurrency: 0 }, 'LJ_ERR_VALIDATION'],
    ['a rate without its window', { rateLimit: { max: 5 } }, 'LJ_ERR_VALIDATION'],
    ['a bad window', { rateLimit: { max: 5, per: 'soon' } }, 'LJ_ERR_VALIDATION'],
    ['an unknown field', { concurrency: 2 }, 'LJ_ERR_UNKNOWN_OPTION'],
    ['an unknown rate field', { rateLimit: { max: 5, per: 1000, burst: 1 } }, 'LJ_ERR_UNKNOWN_OPTION'],
  ])('refuses %s with a 400 and stores nothing', async (_what, body, code) => {
    const s = await serve();
    const r = await s.call('PUT', '/v1/names/mail/limits', { body });
    expect([r.status, r.body.error?.code]).toEqual([400, code]);
    expect((await s.queue.limits()).names).toEqual([]);
  });

  it('refuses a change from another site (its Origin or Sec-Fetch-Site), storing nothing', async () => {
    const s = await serve();
    const foreign: Array<Record<string, string>> = [{ origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of foreign) {
      const put = await s.call('PUT', '/v1/names/mail/limits', { body: { globalConcurrency: 1 }, headers });
      const del = await s.call('DELETE', '/v1/names/mail/limits', { headers });
      expect([put.status, put.body.error?.code, del.status]).toEqual([403, 'LJ_ERR_CROSS_SITE', 403]);
    }
    expect((await s.queue.limits()).names).toEqual([]);
  });

  it('a read-only server refuses it, and it needs the token', async () => {
    const ro = await serve({ server: { readOnly: true } });
    expect((await ro.call('PUT', '/v1/names/mail/limits', { body: { globalConcurrency: 1 } })).status).toBe(403);
    expect((await ro.call('DELETE', '/v1/names/mail/limits')).status).toBe(403);
    const s = await serve({ server: { token: 'limits-token-0123' } });
    expect((await s.call('PUT', '/v1/names/mail/limits', { body: { globalConcurrency: 1 } })).status).toBe(401);
    expect((await s.queue.limits()).names).toEqual([]);
  });
});
