/**
 * The webhook job against a real receiver on 127.0.0.1, on a real queue and
 * SQLite file: what each answer (or the lack of one) does to the job, and
 * what the receiver gets.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { defineWebhookJob, type RetryPolicy, type WebhookJobOptions } from '../../src/index.js';
import { secretKey, verify } from '../../src/webhook/standard-webhooks.js';
import { useReceivers } from '../helpers/http-receiver.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events, nextEvent, waitFor } from '../helpers/wait.js';

const fx = useQueues();
const http = useReceivers();
/** Short waits between attempts, so the tests do not sit through the default backoff. */
const fast: RetryPolicy = { backoff: { type: 'fixed', delay: 20 }, jitter: 0 };

/** Fails if `promise` has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Starts a queue with one webhook job, enqueues `payload`, and resolves once the job reaches `state`. */
async function run(options: WebhookJobOptions<string>, payload: unknown, state: string) {
  // The receivers of these tests run on this machine: a private address the job must be allowed to reach.
  const q = fx.open({ jobs: [defineWebhookJob({ allowPrivate: true, ...options })] });
  const { id } = await q.enqueue(options.name ?? 'webhook', payload);
  const reached = nextEvent(q.events$, (e) => e.job.id === id && e.to === state, 15_000);
  await q.start();
  await reached;
  return { q, id, job: await q.getJob(id), history: await q.history(id) };
}

describe('webhook delivery', () => {
  it('retries a 500, waits as a 429 Retry-After asks without spending an attempt, and completes on 200', async () => {
    const rx = await http.start((n, _req, res) => {
      if (n === 0) return res.writeHead(500, { 'content-type': 'text/plain' }).end('database down');
      if (n === 1) return res.writeHead(429, { 'retry-after': '1' }).end('slow down');
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 6, 'x-request-id': 'rq-7', 'x-other': 'not kept' }).end('thanks');
    });
    const { job, history } = await run({ retry: fast }, { url: `${rx.origin}/hooks`, body: { event: 'order.paid' } }, 'completed');

    expect(rx.received).toHaveLength(3);
    // Three requests, two attempts: the 500 spent one, the 429 gave its back.
    expect(job).toMatchObject({ state: 'completed', attempts: 2 });
    expect(job.result).toEqual({
      status: 200,
      headers: { 'content-type': 'text/plain', 'content-length': '6', 'x-request-id': 'rq-7' },
      body: 'thanks',
      durationMs: expect.any(Number),
    });

    const failures = history.filter((t) => t.to === 'failed');
    expect(failures.map((t) => t.error)).toMatchObject([
      { name: 'WebhookDeliveryError', code: 'LJ_ERR_WEBHOOK_DELIVERY', status: 500, body: 'database down', headers: { 'content-type': 'text/plain' } },
      { name: 'WebhookDeliveryError', code: 'LJ_ERR_RETRY_LATER', retryAfter: 1000, status: 429, body: 'slow down' },
    ]);
    expect(failures[1]!.error!.unrecoverable).toBeUndefined();
    // The run after the 429 was claimed no sooner than the second it asked for.
    const after429 = history.indexOf(failures[1]!);
    const nextClaim = history.slice(after429).find((t) => t.to === 'processing')!;
    expect(nextClaim.at.getTime() - failures[1]!.at.getTime()).toBeGreaterThanOrEqual(1000);
  });

  it('sends a 404 straight to dead after one attempt, keeping the status and body on lastError', async () => {
    const rx = await http.start((_n, _req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('no such hook'));
    const { job } = await run({ retry: fast }, { url: `${rx.origin}/gone` }, 'dead');
    expect(rx.received).toHaveLength(1);
    expect(job).toMatchObject({
      state: 'dead',
      attempts: 1,
      lastError: { name: 'WebhookDeliveryError', code: 'LJ_ERR_UNRECOVERABLE', unrecoverable: true, status: 404, body: 'no such hook' },
    });
    expect(job.lastError!.message).toContain('answered 404 Not Found');
  });

  it('retries when the connection is refused', async () => {
    const port = await http.closedPort();
    const { job, history } = await run({ retry: { ...fast, attempts: 3 } }, { url: `http://127.0.0.1:${port}/` }, 'dead');
    expect(job.attempts).toBe(3);
    const errors = history.filter((t) => t.error).map((t) => t.error!);
    expect(errors).toHaveLength(3);
    for (const e of errors) {
      expect(e).toMatchObject({ code: 'LJ_ERR_WEBHOOK_DELIVERY' });
      expect(e.message).toContain('ECONNREFUSED');
      expect(e.status).toBeUndefined();
    }
  });

  it('retries an attempt the receiver never answers, failing it with a timeout', async () => {
    const rx = await http.start(() => {}); // holds every request open
    const { job, history } = await run({ timeout: 300, retry: { ...fast, attempts: 2 } }, { url: rx.origin }, 'dead');
    expect(rx.received).toHaveLength(2);
    expect(job.attempts).toBe(2);
    const errors = history.filter((t) => t.error).map((t) => t.error!);
    expect(errors).toMatchObject([{ code: 'LJ_ERR_TIMEOUT' }, { code: 'LJ_ERR_TIMEOUT' }]);
    expect(errors[0]!.message).toMatch(/timed out after 300 ms/);
    // The abandoned request's connection was dropped, not left open.
    await within(rx.received[0]!.closed, 5000, 'the connection closed');
  });

  it('aborts the request in flight when the job is cancelled', async () => {
    const rx = await http.start(() => {});
    const q = fx.open({ jobs: [defineWebhookJob({ retry: fast, allowPrivate: true })] });
    const { id } = await q.enqueue('webhook', { url: rx.origin });
    const running = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'processing');
    await q.start();
    await running;
    while (rx.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await q.cancel(id);
    await within(rx.received[0]!.closed, 5000, 'the connection closed'); // the 10 s timeout has not passed

    expect((await q.getJob(id)).state).toBe('cancelled');
  });

  it('keeps only an excerpt of a large body, on the result and on a failed attempt', async () => {
    const big = `${'é'.repeat(300_000)}end`;
    const rx = await http.start((_n, req, res) => res.writeHead(req.url === '/fail' ? 503 : 200, { 'content-type': 'text/plain; charset=utf-8' }).end(big));
    const ok = await run({ maxBodyExcerpt: 100 }, { url: `${rx.origin}/ok` }, 'completed');
    expect((ok.job.result as { body: string }).body).toBe('é'.repeat(100));

    const failed = await run({ name: 'hook', retry: { ...fast, attempts: 1 } }, { url: `${rx.origin}/fail` }, 'dead');
    expect(failed.job.lastError).toMatchObject({ status: 503, body: 'é'.repeat(1024) });
  });

  it('delivers the method, headers and body as sent', async () => {
    const rx = await http.start((_n, _req, res) => res.writeHead(204).end());
    const json = { event: 'invoice.paid', amounts: [1, 2.5], note: null, nested: { ok: true } };
    await run({}, { url: `${rx.origin}/hooks/in?source=test`, method: 'put', headers: { 'X-Signature': 'sha256=abc', authorization: 'Bearer t0k' }, body: json }, 'completed');
    await run({ name: 'csv' }, { url: `${rx.origin}/csv`, headers: { 'content-type': 'text/csv' }, body: 'a,b\n1,2\n' }, 'completed');

    const [put, csv] = rx.received;
    expect(put).toMatchObject({ method: 'PUT', url: '/hooks/in?source=test' });
    expect(put!.headers).toMatchObject({ 'x-signature': 'sha256=abc', authorization: 'Bearer t0k', 'content-type': 'application/json' });
    expect(JSON.parse(put!.body)).toEqual(json);
    expect(csv).toMatchObject({ method: 'POST', url: '/csv', body: 'a,b\n1,2\n' });
    expect(csv!.headers['content-type']).toBe('text/csv');
  });

  it('caps an absurd Retry-After at the policy maxDelay', async () => {
    const rx = await http.start((n, _req, res) => (n === 0 ? res.writeHead(503, { 'retry-after': '999999999' }).end() : res.writeHead(200).end('ok')));
    const { job, history } = await run({ retry: { ...fast, maxDelay: 300 } }, { url: rx.origin }, 'completed');
    expect(job).toMatchObject({ state: 'completed', attempts: 1 });
    const asked = history.find((t) => t.to === 'failed')!.error!;
    expect(asked).toMatchObject({ code: 'LJ_ERR_RETRY_LATER', retryAfter: 300, status: 503 });
    expect(asked.message).toContain('capped at maxDelay 300 ms');
  });

  it.each([
    ['an ftp: url', { url: 'ftp://127.0.0.1/x' }, 'url must be http: or https:, got ftp:'],
    ['an unknown method', { url: 'http://127.0.0.1:9/', method: 'BREW' }, 'method must be one of'],
  ])('sends a payload with %s straight to dead, saying what is wrong', async (_what, payload, message) => {
    const { job } = await run({ retry: fast }, payload, 'dead');
    expect(job).toMatchObject({ attempts: 1, lastError: { code: 'LJ_ERR_UNRECOVERABLE', unrecoverable: true } });
    expect(job.lastError!.message).toContain(message);
  });
});

describe('where the webhook job may send', () => {
  it('refuses loopback, private and link-local targets by default, by literal address or by what a name resolves to: dead, nothing sent', async () => {
    const rx = await http.start((_n, _req, res) => res.writeHead(200).end('internal page'));
    const port = new URL(rx.origin).port;
    const q = fx.open({ jobs: [defineWebhookJob({ retry: fast })] });
    // This machine's own name resolves to a loopback address (/etc/hosts): the connection's lookup refuses it.
    const urls = [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`, `http://[::1]:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, 'http://169.254.169.254/latest/meta-data', 'http://10.0.0.1/', `http://${hostname()}:${port}/`,
      // IPv6 forms that reach IPv4 addresses: IPv4-compatible, NAT64, 6to4.
      `http://[::7f00:1]:${port}/`, 'http://[64:ff9b::a00:1]/', 'http://[2002:7f00:1::1]/'];
    const ids = (await q.enqueueMany(urls.map((url) => ({ name: 'webhook', payload: { url, method: 'GET' } })))).map((r) => r.id);
    const dead = events(q.events$, (e) => e.to === 'dead', urls.length, 15_000);
    await q.start();
    await dead;
    for (const id of ids) {
      const job = await q.getJob(id);
      expect(job).toMatchObject({ state: 'dead', attempts: 1, lastError: { unrecoverable: true } });
      expect(job.result).toBeUndefined();
      expect(job.lastError!.message).toMatch(/private or loopback/);
    }
    expect(rx.received).toEqual([]);
  });

  it('with allowTargets, sends only under those prefixes (same origin, path under the prefix)', async () => {
    const rx = await http.start((_n, _req, res) => res.writeHead(200).end('ok'));
    // A prefix without a trailing slash: whole path segments only.
    const q = fx.open({ jobs: [defineWebhookJob({ retry: fast, allowPrivate: true, allowTargets: [`${rx.origin}/hooks`] })] });
    const [inside, beside, other, encoded, host, matrix, twice] = await q.enqueueMany([
      { name: 'webhook', payload: { url: `${rx.origin}/hooks/a` } },
      { name: 'webhook', payload: { url: `${rx.origin}/hooksevil` } },
      { name: 'webhook', payload: { url: `http://127.0.0.2:${new URL(rx.origin).port}/hooks/a` } },
      // A receiver that decodes %2F would see /admin.
      { name: 'webhook', payload: { url: `${rx.origin}/hooks/..%2Fadmin` } },
      // Another site behind the allowed address: the URL names the host, not a header.
      { name: 'webhook', payload: { url: `${rx.origin}/hooks/a`, headers: { Host: 'admin.internal' } } },
      // Java servers read `..;` as `..`; a receiver that decodes twice reads %252e%252e as `..`.
      { name: 'webhook', payload: { url: `${rx.origin}/hooks/..;/admin` } },
      { name: 'webhook', payload: { url: `${rx.origin}/hooks/%252e%252e/admin` } },
    ]);
    const done = events(q.events$, (e) => e.to === 'completed' || e.to === 'dead', 7, 15_000);
    await q.start();
    await done;
    expect(await q.getJob(inside!.id)).toMatchObject({ state: 'completed', result: { status: 200 } });
    for (const r of [beside!, other!, encoded!, matrix!, twice!]) expect((await q.getJob(r.id)).lastError!.message).toMatch(/not one this job may send to/);
    expect(await q.getJob(host!.id)).toMatchObject({ state: 'dead', lastError: { message: expect.stringMatching(/belongs to the connection/) } });
    expect(rx.received.map((r) => r.url)).toEqual(['/hooks/a']);
    expect(() => defineWebhookJob({ allowTargets: ['ftp://x/'] })).toThrow(/http\(s\) URL prefix/);
    expect(() => defineWebhookJob({ allowTargets: ['https://x.example/?q=1'] })).toThrow(/without credentials, query or fragment/);
  });

  it('signs deliveries the Standard Webhooks way under signatures; the message id stays the same across retries and is new when the job runs again', async () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123').toString('base64')}`;
    let signedSeen = 0;
    const rx = await http.start((_n, req, res) => res.writeHead(req.url === '/signed/a' && signedSeen++ === 0 ? 500 : 200).end());
    const q = fx.open({ jobs: [defineWebhookJob({ retry: fast, allowPrivate: true, signatures: { [`${rx.origin}/signed/`]: secret } })] });
    const [signed, plain] = await q.enqueueMany([
      // Signature headers of the payload's own, in any case, are replaced, not sent beside the job's.
      { name: 'webhook', payload: { url: `${rx.origin}/signed/a`, body: { n: 1 }, headers: { 'WEBHOOK-ID': 'msg_forged', 'Webhook-Signature': 'v1,forged' } } },
      { name: 'webhook', payload: { url: `${rx.origin}/plain`, body: { n: 2 } } },
    ]);
    const done = events(q.events$, (e) => e.to === 'completed', 2, 15_000);
    await q.start();
    await done;
    const again = nextEvent(q.events$, (e) => e.job.id === signed!.id && e.to === 'completed');
    await q.runAgain(signed!.id);
    await again;
    const toSigned = rx.received.filter((r) => r.url === '/signed/a');
    // A failed attempt, its retry, and the run again.
    expect(toSigned).toHaveLength(3);
    const ids = toSigned.map((r) => String(r.headers['webhook-id']));
    for (const [i, r] of toSigned.entries()) {
      expect(verify(secretKey(secret), r.headers, Buffer.from(r.body), Date.now())).toEqual({ ok: true, id: ids[i] });
      expect(String(r.headers['webhook-signature']).includes('forged')).toBe(false);
      // Signed over the exact body: another body does not verify.
      expect(verify(secretKey(secret), r.headers, Buffer.from(`${r.body} `), Date.now()).ok).toBe(false);
    }
    // Random, not the job's id (which another database, or this one restored from a backup, hands out again).
    for (const id of ids) expect(id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect([ids[1] === ids[0], ids[2] === ids[0]]).toEqual([true, false]);
    expect(rx.received.find((r) => r.url === '/plain')?.headers['webhook-signature']).toBeUndefined();
    expect(plain).toBeDefined();
  });

  it('sends another message id for a payload changed while the delivery waited to be retried', async () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123').toString('base64')}`;
    let seen = 0;
    const rx = await http.start((_n, _req, res) => res.writeHead(seen++ === 0 ? 500 : 200).end());
    const q = fx.open({ jobs: [defineWebhookJob({ retry: { attempts: 3, backoff: { type: 'fixed', delay: 50 } }, allowPrivate: true, signatures: { [`${rx.origin}/`]: secret } })] });
    const { id } = await q.enqueue('webhook', { url: `${rx.origin}/orders`, body: { n: 1 } });
    const failed = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'failed');
    await q.start();
    await failed;
    await q.pause('webhook');
    await waitFor(async () => (await q.getJob(id)).state === 'pending');
    await q.update(id, { payload: { url: `${rx.origin}/orders`, body: { n: 2 } } });
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.resume('webhook');
    await done;
    expect(rx.received.map((r) => r.body)).toEqual(['{"n":1}', '{"n":2}']);
    const [first, second] = rx.received.map((r) => String(r.headers['webhook-id']));
    expect(second).not.toBe(first);
  });
});

