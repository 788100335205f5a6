/**
 * Where a trace enters and leaves litejobs, with the real SDK registered: an
 * HTTP request's `traceparent` (hooks and `POST /v1/jobs`), `enqueueSync`
 * inside the application's transaction, a job run on a worker thread, and a
 * webhook delivery as an HTTP client span whose context the receiver gets.
 */
import Database from 'better-sqlite3';
import { createHmac } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/http/index.js';
import { createQueue, defineJob, defineWebhookJob } from '../../src/index.js';
import { useReceivers } from '../helpers/http-receiver.js';
import { parentOf, registered, useTraces } from '../helpers/otel.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { serveQueue, type ServedQueue } from '../helpers/served-queue.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';

const fx = useQueues();
const traces = useTraces();
const http = useReceivers();
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

async function served(): Promise<ServedQueue> {
  const s = await serveQueue({ jobs: [defineJob({ name: 'order-paid', handler: async () => 'ok' })] });
  cleanups.push(() => s.close());
  return s;
}

describe('traces entering through HTTP', () => {
  it("a hook's traceparent and tracestate are the parent of the send span and reach every attempt", async () => {
    registered(traces);
    const { queue, server } = await served();
    const res = await fetch(`${server.url}/v1/hooks/order-paid`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, tracestate: 'vendor=abc' },
      body: JSON.stringify({ order: 1 }),
    });
    expect(res.status).toBeLessThan(300);
    await queue.start();
    const [attempt] = await traces.ended('process order-paid', 1);
    const send = traces.one('send order-paid');
    expect(send.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(send)).toBe(SPAN_ID);
    expect(send.spanContext().traceState?.serialize()).toBe('vendor=abc');
    expect(attempt!.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(attempt!)).toBe(send.spanContext().spanId);
  });

  it('POST /v1/jobs takes the header too; a request without one, or with a malformed one, starts a new trace', async () => {
    registered(traces);
    const { server } = await served();
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/v1/jobs`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ name: 'order-paid', payload: {} }) });
    expect((await post({ traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` })).status).toBe(201);
    expect((await post({})).status).toBe(201);
    expect((await post({ traceparent: `00-${'0'.repeat(32)}-${SPAN_ID}-01` })).status).toBe(201);
    expect((await post({ traceparent: 'not a traceparent' })).status).toBe(201);
    const sends = await traces.ended('send order-paid', 4);
    expect(sends.map((s) => s.spanContext().traceId === TRACE_ID)).toEqual([true, false, false, false]);
    expect(sends.map(parentOf)).toEqual([SPAN_ID, undefined, undefined, undefined]);
  });
  it('a hostile tracestate (thousands of characters, bytes outside ASCII) costs the job at most a few hundred bytes', async () => {
    registered(traces);
    const { queue, server, path } = await served();
    const members = Array.from({ length: 40 }, (_, i) => `k${i}=${'v'.repeat(190)}`);
    const res = await fetch(`${server.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, tracestate: `${members.join(',')},bad=\u00e9\u00ff` },
      body: JSON.stringify({ name: 'order-paid', payload: {} }),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: number };
    expect((await queue.getJob(id)).state).toBe('pending');
    const raw = new Database(path, { readonly: true });
    const text = (raw.prepare('SELECT trace_context FROM jobs WHERE id = ?').pluck().get(id) as string | null) ?? '';
    raw.close();
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(700);
    expect(JSON.parse(text).traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
  });

  it("a signed hook, and every route with acceptTraceparent: false, keep the caller's traceparent out", async () => {
    registered(traces);
    const secret = 'a-hook-secret';
    const jobs = [defineJob({ name: 'pay', handler: async () => 'ok' })];
    const signed = await startServer({ queue: fx.open({ jobs }), port: 0, hooks: { pay: { secret } } });
    cleanups.push(() => signed.close());
    const refusing = await startServer({ queue: fx.open({ jobs }), port: 0, acceptTraceparent: false });
    cleanups.push(() => refusing.close());
    const traceparent = `00-${TRACE_ID}-${SPAN_ID}-01`;
    const body = JSON.stringify({ amount: 1 });
    const hook = await fetch(`${signed.url}/v1/hooks/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': createHmac('sha256', secret).update(body).digest('hex'), traceparent },
      body,
    });
    expect(hook.status).toBeLessThan(300);
    const post = (url: string) => fetch(`${url}/v1/jobs`, { method: 'POST', headers: { 'content-type': 'application/json', traceparent }, body: JSON.stringify({ name: 'pay', payload: {} }) });
    expect((await post(refusing.url)).status).toBe(201);
    expect((await post(signed.url)).status).toBe(201); // not a signed hook: the header is taken
    const sends = await traces.ended('send pay', 3);
    expect(sends.map((s) => s.spanContext().traceId === TRACE_ID)).toEqual([false, false, true]);
    expect(sends.map(parentOf)).toEqual([undefined, undefined, SPAN_ID]);
  });
});

describe('traces of the other enqueue paths and runs', () => {
  it("enqueueSync in the application's transaction stores the caller's trace", async () => {
    registered(traces);
    const file = tempDbPath();
    const db = new Database(file.path);
    const queue = createQueue({ database: db, logger: silentLogger, jobs: [defineJob({ name: 'receipt', handler: async () => 'ok' })] });
    cleanups.push(() => file.cleanup(), () => db.close(), () => queue.close());
    db.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY)');
    const place = db.transaction(() => {
      db.prepare('INSERT INTO orders (id) VALUES (1)').run();
      return queue.enqueueSync('receipt', { order: 1 });
    });
    const { id } = trace.getTracer('app').startActiveSpan('checkout', (span) => {
      try {
        return place();
      } finally {
        span.end();
      }
    });
    await queue.start();
    const [attempt] = await traces.ended('process receipt', 1);
    const send = traces.one('send receipt');
    expect(parentOf(send)).toBe(traces.one('checkout').spanContext().spanId);
    expect(send.attributes).toMatchObject({ 'litejobs.enqueue.method': 'enqueue', 'messaging.message.id': String(id) });
    expect(parentOf(attempt!)).toBe(send.spanContext().spanId);
  });

  it("a thread job gets its attempt's context: the thread's own spans join the job's trace", async () => {
    registered(traces);
    const module = new URL('../fixtures/thread-handlers/traced.ts', import.meta.url);
    const q = fx.open({ jobs: [defineJob({ name: 'crunch', isolation: 'thread', module })] });
    const { id } = await q.enqueue('crunch', {});
    await q.start();
    const result = (await q.result(id, { timeout: 20_000 })) as { carrier: { traceparent: string } | null; active: { traceId: string; spanId: string } | null };
    const [attempt] = await traces.ended('process crunch', 1);
    const { traceId, spanId } = attempt!.spanContext();
    expect(result.carrier).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    expect(result.active).toEqual({ traceId, spanId });
  });

  it('a webhook delivery is an HTTP client span under its attempt, and the receiver gets its traceparent', async () => {
    registered(traces);
    const rx = await http.start((n, _req, res) => res.writeHead(n === 0 ? 503 : 200).end());
    const q = fx.open({ jobs: [defineWebhookJob({ allowPrivate: true, retry: { backoff: { type: 'fixed', delay: 10 }, jitter: 0 } })] });
    // The payload's own traceparent is replaced: the delivery is the receiver's parent.
    const { id } = await q.enqueue('webhook', { url: `${rx.origin}/hooks/secret-token?sig=1`, headers: { TraceParent: `00-${TRACE_ID}-${SPAN_ID}-01` }, body: { paid: true } });
    await q.start();
    await q.result(id, { timeout: 20_000 });
    const attempts = await traces.ended('process webhook', 2);
    const clients = await traces.ended('POST', 2);
    expect(rx.received).toHaveLength(2);
    for (const [n, client] of clients.entries()) {
      expect(client.kind).toBe(SpanKind.CLIENT);
      expect(parentOf(client)).toBe(attempts[n]!.spanContext().spanId);
      const { traceId, spanId } = client.spanContext();
      expect(rx.received[n]!.headers.traceparent).toBe(`00-${traceId}-${spanId}-01`);
      expect(client.attributes).toMatchObject({
        'http.request.method': 'POST',
        'url.full': `${rx.origin}/REDACTED`,
        'server.address': '127.0.0.1',
        'server.port': Number(new URL(rx.origin).port),
      });
    }
    expect(clients[0]!.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' });
    expect(clients[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(clients[1]!.attributes['http.response.status_code']).toBe(200);
    expect(clients[1]!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('an untraced webhook delivery sends the payload headers as they were', async () => {
    const rx = await http.start((_n, _req, res) => res.writeHead(200).end());
    const q = fx.open({ jobs: [defineWebhookJob({ allowPrivate: true })] });
    const { id } = await q.enqueue('webhook', { url: `${rx.origin}/h`, headers: { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` } });
    await q.start();
    await q.result(id, { timeout: 20_000 });
    expect(rx.received[0]!.headers.traceparent).toBe(`00-${TRACE_ID}-${SPAN_ID}-01`);
  });

  it('with an undici instrumentation present, the request is its span: the receiver gets one traceparent, under the attempt', async () => {
    registered(traces);
    // What an undici instrumentation does at each request: a client span under the active context, and its traceparent.
    const instrument = (message: unknown) => {
      const { request } = message as { request: { addHeader(name: string, value: string): unknown } };
      const span = trace.getTracer('undici-instrumentation').startSpan('POST', { kind: SpanKind.CLIENT });
      const { traceId, spanId } = span.spanContext();
      request.addHeader('traceparent', `00-${traceId}-${spanId}-01`);
      span.end();
    };
    subscribe('undici:request:create', instrument);
    try {
      const rx = await http.start((_n, _req, res) => res.writeHead(200).end());
      const q = fx.open({ jobs: [defineWebhookJob({ allowPrivate: true })] });
      const { id } = await q.enqueue('webhook', { url: `${rx.origin}/h` });
      await q.start();
      await q.result(id, { timeout: 20_000 });
      const [attempt] = await traces.ended('process webhook', 1);
      const clients = traces.named('POST');
      expect(clients.map((c) => c.instrumentationScope.name)).toEqual(['undici-instrumentation']);
      expect(parentOf(clients[0]!)).toBe(attempt!.spanContext().spanId);
      const { traceId, spanId } = clients[0]!.spanContext();
      expect(rx.received[0]!.headers.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    } finally {
      unsubscribe('undici:request:create', instrument);
    }
  });
});

describe('telemetry options, given what they do not take', () => {
  it('createQueue refuses a telemetry option that is not a boolean or { traces, metrics } of booleans, before opening anything', () => {
    const bad: unknown[] = [null, 'on', 1, [], { traces: 'yes' }, { metrics: 0 }, { logs: true }];
    for (const telemetry of bad) {
      let thrown: unknown;
      try {
        fx.open({ telemetry: telemetry as never });
      } catch (err) {
        thrown = err;
      }
      expect(thrown, JSON.stringify(telemetry)).toMatchObject({ code: expect.stringMatching(/^LJ_ERR_(VALIDATION|UNKNOWN_OPTION)$/) });
    }
  });

  it('litejobsHttp refuses an acceptTraceparent that is not a boolean', async () => {
    const queue = fx.open();
    await expect(startServer({ queue, port: 0, acceptTraceparent: 'false' as never })).rejects.toThrow(/acceptTraceparent/);
  });
});
