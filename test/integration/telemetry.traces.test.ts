/**
 * Traces with the real OpenTelemetry SDK registered: each enqueue is a `send`
 * span whose context the job stores, each attempt a `process` span under it
 * (and linked to it) with the handler's own spans nested inside; retries and
 * dead letters are span events; steps are child spans; with no SDK, or with
 * `telemetry: false`, nothing is traced. Runs on both stores.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { defineJob, RateLimitedError, type Queue } from '../../src/index.js';
import { parentOf, registered, useTraces } from '../helpers/otel.js';
import { useQueues } from '../helpers/queue-fixture.js';

const fx = useQueues();
const traces = useTraces();
const app = () => trace.getTracer('app');

async function storedContext(id: number): Promise<unknown> {
  const text = await fx.value<string | null>('SELECT trace_context FROM jobs WHERE id = ?', [id]);
  return text === null ? null : JSON.parse(text);
}

const inSpan = <T>(name: string, fn: () => Promise<T>): Promise<T> =>
  app().startActiveSpan(name, async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });

describe('traces of jobs', () => {
  it('one trace from the request to the attempts: send under the caller, a failed attempt with a retry event, then the completing one; the handler nests', async () => {
    registered(traces);
    let calls = 0;
    const q: Queue = fx.open({
      jobs: [
        defineJob({
          name: 'charge',
          retry: { attempts: 3, backoff: { type: 'fixed', delay: 20 } },
          handler: async () => {
            await inSpan('charge card', async () => undefined);
            if (++calls === 1) throw Object.assign(new Error('card declined'), { code: 'E_DECLINED' });
            return 'ok';
          },
        }),
      ],
    });
    const { id } = await inSpan('POST /orders', () => q.enqueue('charge', { order: 7 }, { key: 'order-7', delay: 5 }));
    await q.start();
    const [first, second] = await traces.ended('process charge', 2);

    const request = traces.one('POST /orders');
    const send = traces.one('send charge');
    expect(send.kind).toBe(SpanKind.PRODUCER);
    expect(send.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(parentOf(send)).toBe(request.spanContext().spanId);
    expect(send.attributes).toMatchObject({
      'messaging.system': 'litejobs',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
      'litejobs.enqueue.method': 'enqueue',
      'messaging.destination.name': 'charge',
      'messaging.message.id': String(id),
      'litejobs.job.key': 'order-7',
    });
    expect(send.attributes['litejobs.job.run_at']).toEqual(expect.any(String));

    // The context the job stores is the send span's, in W3C form.
    const { traceId, spanId } = send.spanContext();
    expect(await storedContext(id)).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });

    for (const [n, attempt] of [first!, second!].entries()) {
      expect(attempt.kind).toBe(SpanKind.CONSUMER);
      expect(attempt.spanContext().traceId).toBe(traceId);
      expect(parentOf(attempt)).toBe(spanId);
      expect(attempt.links.map((l) => l.context.spanId)).toEqual([spanId]);
      expect(attempt.attributes).toMatchObject({
        'messaging.system': 'litejobs',
        'messaging.operation.type': 'process',
        'messaging.destination.name': 'charge',
        'messaging.message.id': String(id),
        'litejobs.job.attempt': n + 1,
        'litejobs.lease.owner': expect.any(String),
      });
    }
    expect(first!.attributes).toMatchObject({ 'litejobs.job.outcome': 'job.fail', 'litejobs.job.state': 'failed', 'error.type': 'E_DECLINED' });
    expect(first!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'card declined' });
    const retry = first!.events.find((e) => e.name === 'litejobs.job.retry');
    expect(retry?.attributes).toMatchObject({ 'exception.message': 'card declined', 'litejobs.job.run_at': expect.any(String) });
    expect(second!.attributes).toMatchObject({ 'litejobs.job.outcome': 'job.complete', 'litejobs.job.state': 'completed' });
    expect(second!.status.code).toBe(SpanStatusCode.UNSET);

    // The handler's own spans are children of its attempt.
    const own = traces.named('charge card');
    expect(own.map(parentOf)).toEqual([first!.spanContext().spanId, second!.spanContext().spanId]);
  });

  it('the last attempt failing records a dead-letter event with the error', async () => {
    registered(traces);
    const q = fx.open({
      jobs: [defineJob({ name: 'doomed', retry: { attempts: 1 }, handler: async () => Promise.reject(new TypeError('no such order')) })],
    });
    await q.enqueue('doomed', {});
    await q.start();
    const [attempt] = await traces.ended('process doomed', 1);
    expect(attempt!.attributes).toMatchObject({ 'litejobs.job.state': 'dead', 'error.type': 'TypeError' });
    expect(attempt!.events.map((e) => e.name)).toContain('litejobs.job.dead');
    expect(attempt!.events.find((e) => e.name === 'litejobs.job.dead')!.attributes).toMatchObject({ 'exception.type': 'TypeError', 'exception.message': 'no such order' });
    expect(attempt!.events.find((e) => e.name === 'exception')).toBeDefined();
  });

  it('a job enqueued with no active context starts a trace of its own; one enqueued untraced runs in a new root span', async () => {
    registered(traces);
    const jobs = [defineJob({ name: 'plain', handler: async () => 'ok' })];
    const untraced = fx.open({ telemetry: false, jobs });
    const q = fx.open({ jobs });
    const a = await q.enqueue('plain', { n: 1 });
    const b = await untraced.enqueue('plain', { n: 2 });
    expect(await storedContext(b.id)).toBeNull();
    await q.start();
    const attempts = await traces.ended('process plain', 2);
    const byId = (id: number) => attempts.find((s) => s.attributes['messaging.message.id'] === String(id))!;

    const send = traces.one('send plain');
    expect(parentOf(send)).toBeUndefined(); // a root: a new trace
    expect(parentOf(byId(a.id))).toBe(send.spanContext().spanId);
    expect(byId(b.id).spanContext().traceId).not.toBe(send.spanContext().traceId);
    expect(parentOf(byId(b.id))).toBeUndefined();
    expect(byId(b.id).links).toEqual([]);
  });

  it('telemetry: false makes no span and stores no context', async () => {
    registered(traces);
    const q = fx.open({ telemetry: false, jobs: [defineJob({ name: 'quiet', handler: async () => 'ok' })] });
    const { id } = await inSpan('caller', () => q.enqueue('quiet', {}));
    await q.start();
    await expect(q.result(id, { timeout: 10_000 })).resolves.toBe('ok');
    expect(traces.spans().map((s) => s.name)).toEqual(['caller']);
    expect(await storedContext(id)).toBeNull();
  });

  it('no SDK registered: nothing is traced, and an SDK registered later traces the same queue', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'later', handler: async () => 'ok' })] });
    const before = await q.enqueue('later', {});
    expect(await storedContext(before.id)).toBeNull();
    registered(traces);
    const after = await q.enqueue('later', {});
    expect(await storedContext(after.id)).not.toBeNull();
    await q.start();
    await traces.ended('process later', 2);
    expect(traces.named('send later')).toHaveLength(1);
  });

  it('enqueueMany is one send span for the batch; every job of it runs in that trace', async () => {
    registered(traces);
    const q = fx.open({ jobs: [defineJob({ name: 'fan', handler: async () => 'ok' })] });
    const results = await q.enqueueMany([1, 2, 3].map((n) => ({ name: 'fan', payload: { n } })));
    await q.start();
    const attempts = await traces.ended('process fan', 3);
    const send = traces.one('send fan');
    expect(send.attributes).toMatchObject({ 'messaging.operation.name': 'send', 'litejobs.enqueue.method': 'enqueue_many', 'messaging.batch.message_count': 3, 'litejobs.job.ids': results.map((r) => String(r.id)) });
    expect(new Set(attempts.map(parentOf))).toEqual(new Set([send.spanContext().spanId]));
  });

  it('durable steps are child spans of their attempt; a replayed step and a sleep are events', async () => {
    registered(traces);
    let attempt = 0;
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'order',
          handler: async (_p, ctx) => {
            attempt++;
            const reserved = await ctx.step('reserve', async () => {
              await inSpan('stock api', async () => undefined);
              return 'r1';
            });
            await ctx.sleep('cool-off', 300);
            return reserved;
          },
        }),
      ],
    });
    const { id } = await q.enqueue('order', {});
    await q.start();
    await expect(q.result(id, { timeout: 10_000 })).resolves.toBe('r1');
    // Should this wait run out, its message tells which attempts the job had (a case seen once under heavy load on PostgreSQL).
    const [slept, finished] = await traces.ended('process order', 2).catch(async (err: Error) => {
      const moves = (await q.history(id)).map((t) => `${t.from ?? '∅'}→${t.to} (${t.event})`).join(', ');
      throw new Error(`${err.message}; the job's history: ${moves}`);
    });
    expect(attempt).toBe(2);
    const step = traces.one('step reserve');
    expect(parentOf(step)).toBe(slept!.spanContext().spanId);
    expect(parentOf(traces.one('stock api'))).toBe(step.spanContext().spanId);
    expect(slept!.attributes['litejobs.job.outcome']).toBe('job.sleep');
    expect(slept!.events.map((e) => e.name)).toContain('litejobs.sleep');
    expect(finished!.events.filter((e) => e.name === 'litejobs.step.replayed').map((e) => e.attributes?.['litejobs.step.name'])).toEqual(['reserve']);
  });

  it('a flow is one send span: the parent and its children run in its trace, each child naming its parent', async () => {
    registered(traces);
    const q = fx.open({
      jobs: [defineJob({ name: 'parent', handler: async () => 'p' }), defineJob({ name: 'child', handler: async () => 'c' })],
    });
    const flow = await inSpan('import', () => q.enqueueFlow({ name: 'parent', payload: {}, children: [{ name: 'child', payload: { n: 1 } }, { name: 'child', payload: { n: 2 } }] }));
    await q.start();
    const children = await traces.ended('process child', 2);
    const [parent] = await traces.ended('process parent', 1);
    const send = traces.one('send');
    expect(send.attributes).toMatchObject({ 'litejobs.enqueue.method': 'enqueue_flow', 'messaging.batch.message_count': 3 });
    expect(parentOf(send)).toBe(traces.one('import').spanContext().spanId);
    for (const s of [...children, parent!]) expect(parentOf(s)).toBe(send.spanContext().spanId);
    expect(children.map((c) => c.attributes['litejobs.job.parent_id'])).toEqual([String(flow.id), String(flow.id)]);
  });

  it('a big batch lists its first 100 ids and counts them all', async () => {
    registered(traces);
    const q = fx.open();
    await q.enqueueMany(Array.from({ length: 150 }, (_, n) => ({ name: 'bulk', payload: { n } })));
    const send = traces.one('send bulk');
    expect(send.attributes['messaging.batch.message_count']).toBe(150);
    expect(send.attributes['litejobs.job.ids']).toHaveLength(100);
  });

  it("a schedule's jobs start traces of their own, whatever context start() was called in", async () => {
    registered(traces);
    const q = fx.open({ jobs: [defineJob({ name: 'tick', schedule: { cron: '* * * * * *' }, handler: async () => 'ok' })] });
    await inSpan('app startup', () => q.start());
    const [attempt] = await traces.ended('process tick', 1);
    const send = traces.named('send tick')[0]!;
    expect(parentOf(send)).toBeUndefined();
    expect(send.attributes['litejobs.enqueue.method']).toBe('schedule');
    expect(send.spanContext().traceId).not.toBe(traces.one('app startup').spanContext().traceId);
    expect(parentOf(attempt!)).toBe(send.spanContext().spanId);
  });

  it('a RateLimitedError is flow control: an event on the attempt, not a failed span', async () => {
    registered(traces);
    let calls = 0;
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'api',
          handler: async () => {
            if (++calls === 1) throw new RateLimitedError(20);
            return 'ok';
          },
        }),
      ],
    });
    await q.enqueue('api', {});
    await q.start();
    const [limited, done] = await traces.ended('process api', 2);
    expect(limited!.status.code).toBe(SpanStatusCode.UNSET);
    expect(limited!.attributes).toMatchObject({ 'litejobs.job.outcome': 'job.release' });
    expect(limited!.attributes['error.type']).toBeUndefined();
    expect(limited!.events.find((e) => e.name === 'litejobs.job.rate_limited')?.attributes).toMatchObject({ 'litejobs.rate_limit.delay_ms': 20 });
    expect(done!.attributes['litejobs.job.state']).toBe('completed');
  });
});
