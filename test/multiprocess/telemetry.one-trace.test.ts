/**
 * One trace across two processes: a request carrying `traceparent` reaches a
 * hook served by this process (the SDK registered here, spans in memory),
 * which enqueues the job; a worker process (its own SDK, exporting over
 * OTLP/HTTP to a receiver this test runs) fails the first attempt and
 * completes the second. The worker's spans, decoded from what it exported,
 * sit in the request's trace under the hook's `send` span.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { SpanKind, trace } from '@opentelemetry/api';
import { afterEach, expect, it } from 'vitest';
import { declareJob } from '../../src/index.js';
import { spawnFixture } from '../helpers/child-process.js';
import { parentOf, registered, useTraces } from '../helpers/otel.js';
import { serveQueue, type ServedQueue } from '../helpers/served-queue.js';
import { waitFor } from '../helpers/wait.js';

const WORKER = fileURLToPath(new URL('../fixtures/traced-worker.ts', import.meta.url));
const traces = useTraces();

/** A span as OTLP/JSON carries it (ids in hex, times as nanosecond strings, kind numbered from 1 = INTERNAL). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
  events: Array<{ name: string; attributes: OtlpSpan['attributes'] }>;
  links: Array<{ traceId: string; spanId: string }>;
  status: { code?: number; message?: string };
}
interface OtlpTraces {
  resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An OTLP/HTTP trace receiver on loopback: every span of every export it got. */
async function otlpReceiver(): Promise<{ url: string; spans: OtlpSpan[] }> {
  const spans: OtlpSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraces;
      for (const r of body.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1/traces`, spans };
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue === undefined ? undefined : Number(v.intValue));
};

it('an HTTP hook here, two attempts in a worker process there: one trace', async () => {
  registered(traces);
  const receiver = await otlpReceiver();
  const served: ServedQueue = await serveQueue({ jobs: [declareJob('charge')] });
  cleanups.push(() => served.close());
  const worker = spawnFixture(WORKER, served.path, receiver.url);
  cleanups.push(() => {
    worker.proc.kill('SIGTERM');
    return worker.exited;
  });

  // The caller's span: its context travels in the request's traceparent.
  const caller = trace.getTracer('client').startSpan('checkout');
  const { traceId, spanId } = caller.spanContext();
  const res = await fetch(`${served.server.url}/v1/hooks/charge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${spanId}-01` },
    body: JSON.stringify({ order: 42 }),
  });
  caller.end();
  expect(res.status).toBeLessThan(300);
  const { id } = (await res.json()) as { id: number };

  await worker.waitFor((m) => m.type === 'ready', 30_000);
  const count = (name: string) => receiver.spans.filter((s) => s.name === name).length;
  await waitFor(() => count('process charge') >= 2 && count('call payment provider') >= 2, 30_000);
  expect((await served.queue.getJob(id)).state).toBe('completed');

  const send = traces.one('send charge');
  expect(send.spanContext().traceId).toBe(traceId);
  expect(parentOf(send)).toBe(spanId);

  const attempts = receiver.spans.filter((s) => s.name === 'process charge').sort((a, b) => Number(attr(a, 'litejobs.job.attempt')) - Number(attr(b, 'litejobs.job.attempt')));
  expect(attempts.map((s) => attr(s, 'litejobs.job.attempt'))).toEqual([1, 2]);
  for (const attempt of attempts) {
    expect(attempt.traceId).toBe(traceId);
    expect(attempt.parentSpanId).toBe(send.spanContext().spanId);
    expect(attempt.links.map((l) => l.spanId)).toEqual([send.spanContext().spanId]);
    expect(attempt.kind).toBe(SpanKind.CONSUMER + 1); // OTLP numbers kinds from 1
    expect(attr(attempt, 'messaging.message.id')).toBe(String(id));
  }
  const [failed, completed] = attempts as [OtlpSpan, OtlpSpan];
  expect(attr(failed, 'litejobs.job.outcome')).toBe('job.fail');
  expect(failed.status.message).toBe('provider timed out');
  const retry = failed.events.find((e) => e.name === 'litejobs.job.retry');
  expect(retry?.attributes.find((a) => a.key === 'exception.message')?.value.stringValue).toBe('provider timed out');
  expect(attr(completed, 'litejobs.job.state')).toBe('completed');

  // The worker's own spans nest under the attempt that ran them.
  const own = receiver.spans.filter((s) => s.name === 'call payment provider');
  expect(own.map((s) => s.parentSpanId).sort()).toEqual(attempts.map((s) => s.spanId).sort());
  expect(new Set(receiver.spans.map((s) => s.traceId))).toEqual(new Set([traceId]));
});
