import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { bearerCheck, isLoopback } from '../../src/http/auth.js';
import { litejobsHttp, startServer } from '../../src/http/index.js';
import { createQueue } from '../../src/index.js';
import { useServers } from '../helpers/http-server.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';

const serve = useServers();
const TOKEN = 'test-token-0123456789';

/** A request to every route the plugin registers, with what it needs to pass validation. */
const concrete = (method: string, url: string): { route: string; body?: unknown } => {
  const route = url.replace(':id', '1').replace(':name', 'a').replace('/*', '/app.js');
  if (method !== 'POST') return { route };
  if (url === '/v1/jobs') return { route, body: { name: 'a' } };
  if (url === '/v1/jobs/batch') return { route, body: { jobs: [{ name: 'a' }] } };
  if (url.startsWith('/v1/hooks/')) return { route, body: { event: 1 } };
  if (url === '/v1/jobs/cancel') return { route, body: { ids: [1] } };
  return { route };
};

/** No token asked: the health check, and the dashboard's page and assets (code, no data; the page asks for the token). */
const PUBLIC = new Set(['/healthz', '/', '/dashboard/assets/*']);

describe('bearer token', () => {
  it('is required on every route but /healthz and the dashboard page, and a wrong one stores nothing', async () => {
    // Collect the plugin's routes as fastify registers them, so a new route cannot slip past this test.
    const routes: Array<{ method: string; url: string }> = [];
    const probe = Fastify();
    probe.addHook('onRoute', (r) => {
      for (const method of [r.method].flat()) if (method !== 'HEAD') routes.push({ method, url: r.url });
    });
    const db = tempDbPath();
    const probeQueue = createQueue({ path: db.path, logger: silentLogger });
    await probe.register(litejobsHttp, { queue: probeQueue, token: TOKEN });
    await probe.ready();
    await probe.close();
    await probeQueue.close();
    db.cleanup();
    expect(routes.length).toBeGreaterThanOrEqual(13);

    const s = await serve({ server: { token: TOKEN } });
    await s.queue.enqueue('a', {});
    const before = await s.snapshot();
    for (const { method, url } of routes) {
      const { route, body } = concrete(method, url);
      for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: TOKEN }, { authorization: `Basic ${TOKEN}` }]) {
        const r = await s.call(method, route, { headers, ...(body === undefined ? {} : { body }) });
        if (PUBLIC.has(url)) expect([url, r.status]).toEqual([url, 200]);
        else expect([method, url, r.status, r.body.error?.code]).toEqual([method, url, 401, 'LJ_ERR_UNAUTHORIZED']);
      }
    }
    expect(await s.snapshot()).toEqual(before);

    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const { method, url } of routes) {
      const { route, body } = concrete(method, url);
      if (url === '/v1/dashboard/events') {
        // A stream: its status is all there is to check; then hang up.
        const stream = await fetch(s.url + route, { headers: auth });
        expect([url, stream.status]).toEqual([url, 200]);
        await stream.body?.cancel();
        continue;
      }
      const r = await s.call(method, route, { headers: auth, ...(body === undefined ? {} : { body }) });
      expect([method, url, r.status === 401]).toEqual([method, url, false]);
    }
    expect((await s.call('POST', '/v1/jobs', { headers: { authorization: `bearer   ${TOKEN}` }, body: { name: 'a' } })).status).toBe(201);
  });

  it('bearerCheck compares whole tokens only', () => {
    const check = bearerCheck(TOKEN);
    expect(check(`Bearer ${TOKEN}`)).toBe(true);
    expect(check(`Bearer ${TOKEN}x`)).toBe(false);
    expect(check(`Bearer ${TOKEN.slice(0, -1)}`)).toBe(false);
    expect(check('Bearer ')).toBe(false);
    expect(check(undefined)).toBe(false);
    expect(check(`Bearer ${TOKEN} extra`)).toBe(false);
  });
});

describe('binding', () => {
  it('refuses a non-loopback address without a token, and takes one with a token', async () => {
    const db = tempDbPath();
    const queue = createQueue({ path: db.path, logger: silentLogger });
    try {
      await expect(startServer({ queue, host: '0.0.0.0', port: 0 })).rejects.toMatchObject({ code: 'LJ_ERR_UNSAFE_BIND' });
      await expect(startServer({ queue, host: '::', port: 0 })).rejects.toMatchObject({ code: 'LJ_ERR_UNSAFE_BIND' });
      const open = await startServer({ queue, host: '0.0.0.0', port: 0, token: TOKEN });
      expect(open.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
      const r = await fetch(`${open.url.replace('0.0.0.0', '127.0.0.1')}/v1/stats`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(r.status).toBe(200);
      await open.close();
      const local = await startServer({ queue, port: 0 });
      expect(local.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      await local.close();
    } finally {
      await queue.close();
      db.cleanup();
    }
  });

  it('isLoopback knows the loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost']) expect([host, isLoopback(host)]).toEqual([host, true]);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '128.0.0.1']) expect([host, isLoopback(host)]).toEqual([host, false]);
  });
});

describe('mounted in an application', () => {
  it('serves under a prefix, keeps its own validation and auth, and leaves the app\'s routes alone', async () => {
    const db = tempDbPath();
    const queue = createQueue({ path: db.path, logger: silentLogger });
    // The app's own validator strips unknown fields (fastify's default); the plugin's must not.
    const app = Fastify({ ajv: { customOptions: { removeAdditional: true } } });
    app.post('/app/echo', { schema: { body: { type: 'object', additionalProperties: false, properties: { a: { type: 'number' } } } } }, async (request) => request.body);
    await app.register(litejobsHttp, { queue, token: TOKEN, prefix: '/queue' });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    try {
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(base + path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
      const echo = await post('/app/echo', { a: 1, b: 2 });
      expect([echo.status, await echo.json()]).toEqual([200, { a: 1 }]); // the app's rules, no token needed
      const auth = { authorization: `Bearer ${TOKEN}` };
      const unknown = await post('/queue/v1/jobs', { name: 'a', b: 2 }, auth);
      expect([unknown.status, ((await unknown.json()) as { error: { code: string } }).error.code]).toEqual([400, 'LJ_ERR_UNKNOWN_OPTION']);
      const ok = await post('/queue/v1/jobs', { name: 'a' }, auth);
      expect(ok.status).toBe(201);
      expect((await fetch(`${base}/queue/healthz`)).status).toBe(200);
      expect((await post('/queue/v1/jobs', { name: 'a' })).status).toBe(401);
      expect((await queue.stats()).total).toBe(1);
    } finally {
      await app.close();
      await queue.close();
      db.cleanup();
    }
  });

  it('refuses unknown plugin options and a short token', async () => {
    const db = tempDbPath();
    const queue = createQueue({ path: db.path, logger: silentLogger });
    try {
      await expect(Fastify().register(litejobsHttp, { queue, tokn: 'x' } as never).ready()).rejects.toThrow(/unknown option "tokn"/);
      await expect(Fastify().register(litejobsHttp, { queue, token: 'short' }).ready()).rejects.toThrow(/at least 8/);
    } finally {
      await queue.close();
      db.cleanup();
    }
  });
});
