/**
 * The dashboard's live routes over a real socket: the JSON views, and the
 * event stream: a first tick at once, ticks as jobs move, a reconnect with
 * Last-Event-ID that gets every change made meanwhile exactly once, what is
 * paused (by any process) in every tick, a reset for a cursor it cannot
 * replay, and the end of the stream when the server closes.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Tick } from '../../src/live/change-feed.js';
import { createDashboardLive, type DashboardLive, type DashboardLiveOptions } from '../../src/live/live.js';
import { dashboardLiveRoutes } from '../../src/http/routes/dashboard-live.js';
import { defineJob, type Queue } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events, waitFor } from '../helpers/wait.js';

const fx = useQueues();
const apps: FastifyInstance[] = [];
const clients: ClientRequest[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  for (const app of apps.splice(0)) await app.close();
});

async function serve(queue: Queue, options: DashboardLiveOptions = {}): Promise<{ app: FastifyInstance; url: string; live: DashboardLive }> {
  const app = Fastify();
  const live = createDashboardLive(queue, { intervalMs: 20, ...options });
  await app.register(async (a) => dashboardLiveRoutes(a, live));
  await app.listen({ port: 0, host: '127.0.0.1' });
  apps.push(app);
  const address = app.server.address() as { port: number };
  return { app, url: `http://127.0.0.1:${address.port}`, live };
}

interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/** An event stream read over node:http: messages as they come, and a wait for the ones a test needs. */
function connect(url: string, lastEventId?: string) {
  const messages: SseMessage[] = [];
  let ended = false;
  let wake = () => {};
  let response: IncomingMessage | undefined;
  const req = httpRequest(`${url}/v1/dashboard/events`, { headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId } });
  clients.push(req);
  const opened = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', (res) => {
      response = res;
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const m: SseMessage = { event: 'message', data: '' };
          let comment = true;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            comment = false;
            const [field, ...rest] = line.split(':');
            const value = rest.join(':').replace(/^ /, '');
            if (field === 'id') m.id = value;
            else if (field === 'event') m.event = value;
            else if (field === 'data') m.data += value;
          }
          if (!comment) messages.push(m);
        }
        wake();
      });
      res.on('end', () => {
        ended = true;
        wake();
      });
      resolve(res);
    });
    req.on('error', reject);
  });
  req.end();
  const until = async (condition: () => boolean, ms = 10_000) => {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`stream: condition not met within ${ms} ms (${messages.length} messages)`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  };
  const ticks = () => messages.filter((m) => m.event === 'tick').map((m) => JSON.parse(m.data) as Tick);
  const transitions = () => ticks().reduce((n, t) => n + t.transitions.reduce((a, x) => a + x.count, 0), 0);
  const enqueued = () => ticks().reduce((n, t) => n + t.enqueued, 0);
  return { messages, opened, until, ticks, transitions, enqueued, ended: () => ended, close: () => req.destroy(), response: () => response };
}

const jobs = () => [defineJob({ name: 'w', handler: () => 'ok' })];

describe('GET /v1/dashboard/events', () => {
  for (const [label, options] of [
    ['while the feed keeps running', {}],
    ['after the feed stopped with the last listener', { idleMs: 0 }],
  ] as Array<[string, DashboardLiveOptions]>) {
    it(`a reconnect with Last-Event-ID gets every change made meanwhile, once (${label})`, async () => {
      const q = fx.open({ jobs: jobs() });
      const { url, live } = await serve(q, options);
      const first = connect(url);
      const res = await first.opened;
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['x-accel-buffering']).toBe('no');
      await first.until(() => first.ticks().length >= 1);
      expect(first.ticks()[0]).toMatchObject({ transitions: [], enqueued: 0, counts: {} });
      await q.enqueueMany([{ name: 'w', payload: 1 }, { name: 'w', payload: 2 }]);
      await first.until(() => first.enqueued() === 2);
      expect(first.ticks().at(-1)!.counts).toEqual({ pending: 2 });
      const lastId = first.messages.filter((m) => m.id).at(-1)!.id!;
      first.close();
      // Without a listener and with no idle spell, the feed stops: the reconnect starts it again from a new cursor.
      if (options.idleMs === 0) await waitFor(() => !live.running());

      // Meanwhile: 2 + 5 jobs each claimed and completed, N = 14 transitions, and 5 enqueues.
      const done = events(q.events$, (e) => e.to === 'completed', 7);
      await q.enqueueMany(Array.from({ length: 5 }, (_, i) => ({ name: 'w', payload: i })));
      await q.start();
      await done;
      await q.stop();

      const again = connect(url, lastId);
      await again.until(() => again.transitions() >= 14 && again.enqueued() >= 5);
      // One change more, with no transition: once it has come, every tick before it has too.
      await q.enqueue('marker', {});
      await again.until(() => again.ticks().some((t) => t.recent.some((r) => r.name === 'marker')));
      expect(again.transitions()).toBe(14);
      expect(again.enqueued()).toBe(6);
      expect(again.messages.some((m) => m.event === 'reset')).toBe(false);
      const byEdge = new Map<string, number>();
      for (const t of again.ticks()) for (const x of t.transitions) byEdge.set(`${x.from}>${x.to}`, (byEdge.get(`${x.from}>${x.to}`) ?? 0) + x.count);
      expect(Object.fromEntries(byEdge)).toEqual({ 'pending>processing': 7, 'processing>completed': 7 });
      expect(again.ticks().at(-1)!.counts).toEqual({ completed: 7, pending: 1 });
    });
  }

  it('carries each progress update as a recent change with its value, though no job moved', async () => {
    const gates: Array<() => void> = [];
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'p',
          handler: async (_: unknown, ctx) => {
            await new Promise<void>((go) => gates.push(go));
            await ctx.progress({ done: 1, of: 3 });
            await new Promise<void>((go) => gates.push(go));
            await ctx.progress({ log: 'x'.repeat(4000) });
            await new Promise<void>((go) => gates.push(go));
          },
        }),
      ],
    });
    const { url } = await serve(q);
    const stream = connect(url);
    await stream.until(() => stream.ticks().length >= 1);
    const { id } = await q.enqueue('p', {});
    await q.start();
    await waitFor(() => gates.length === 1);
    await stream.until(() => stream.transitions() === 1);
    const before = stream.ticks().length;
    gates.shift()!();
    await stream.until(() => stream.ticks().slice(before).some((t) => t.recent.some((r) => r.event === 'job.progress')));
    const tick = stream.ticks().slice(before).find((t) => t.recent.some((r) => r.event === 'job.progress'))!;
    expect(tick.recent.find((r) => r.event === 'job.progress')).toMatchObject({ id, name: 'p', from: 'processing', to: 'processing', progress: { done: 1, of: 3 } });
    // No move: no transition counted, the counts unchanged.
    expect(tick.transitions).toEqual([]);
    expect(tick.counts).toEqual({ processing: 1 });
    // A large value is left out of the tick (every page gets each one); the change itself is there.
    const seen = stream.ticks().length;
    gates.shift()!();
    await stream.until(() => stream.ticks().slice(seen).some((t) => t.recent.some((r) => r.event === 'job.progress')));
    const large = stream.ticks().slice(seen).flatMap((t) => t.recent).find((r) => r.event === 'job.progress')!;
    expect(large).toMatchObject({ id, from: 'processing', to: 'processing' });
    expect(large).not.toHaveProperty('progress');
    gates.shift()!();
    await q.stop();
  });

  it('carries what is paused, and sends a tick when another process pauses or resumes, though no job moved', async () => {
    const q = fx.open({ jobs: jobs() });
    // Another connection to the same file, as another process (or the CLI) would have.
    const other = fx.open();
    const { url, live } = await serve(q, { idleMs: 0 });
    const stream = connect(url);
    await stream.until(() => stream.ticks().length >= 1);
    expect(stream.ticks()[0]!.paused).toEqual({ all: false, names: [] });
    const last = () => stream.ticks().at(-1)!;

    await other.pause('w');
    await stream.until(() => last().paused.names.includes('w'));
    expect(last().paused).toEqual({ all: false, names: ['w'] });
    await other.pause('a');
    await stream.until(() => last().paused.names.length === 2);
    expect(last().paused).toEqual({ all: false, names: ['a', 'w'] });

    await other.resume('w');
    await stream.until(() => !last().paused.names.includes('w'));
    expect(last().paused).toEqual({ all: false, names: ['a'] });

    await other.pause();
    await stream.until(() => last().paused.all);
    expect(last().paused).toEqual({ all: true, names: ['a'] });
    for (const tick of stream.ticks()) expect(tick).toMatchObject({ counts: {}, enqueued: 0, transitions: [], recent: [] });

    // A reconnect gets what is paused now in its first tick, though the feed stopped meanwhile.
    const lastId = stream.messages.filter((m) => m.id).at(-1)!.id!;
    stream.close();
    await waitFor(() => !live.running());
    await other.resume('a');
    const again = connect(url, lastId);
    await again.until(() => again.messages.length >= 1);
    expect(again.messages[0]!.event).toBe('tick');
    expect(again.ticks()[0]!.paused).toEqual({ all: true, names: [] });
  });

  it('answers a cursor it does not know, or one too far behind, with a reset, then goes on', async () => {
    const q = fx.open();
    const { url } = await serve(q, { maxReplayRows: 5 });
    const unknown = connect(url, '99999.99999');
    await unknown.until(() => unknown.messages.length >= 2);
    expect(unknown.messages[0]).toEqual({ event: 'reset', data: '{}' });
    expect(unknown.messages[1]!.event).toBe('tick');
    const garbled = connect(url, 'not-a-cursor');
    await garbled.until(() => garbled.messages.length >= 1);
    expect(garbled.messages[0]!.event).toBe('reset');
    await q.enqueueMany(Array.from({ length: 6 }, (_, i) => ({ name: 'x', payload: i })));
    await unknown.until(() => unknown.enqueued() === 6);
    const behind = connect(url, '0.0');
    await behind.until(() => behind.messages.length >= 1);
    expect(behind.messages[0]!.event).toBe('reset');
    const near = connect(url, unknown.messages.filter((m) => m.id).at(-1)!.id);
    await near.until(() => near.messages.length >= 1);
    expect(near.messages[0]!.event).toBe('tick');
  });

  it('ends open streams when the server closes', async () => {
    const q = fx.open();
    const { app, url } = await serve(q);
    const stream = connect(url);
    await stream.until(() => stream.ticks().length >= 1);
    await app.close();
    await stream.until(() => stream.ended());
    expect(stream.ended()).toBe(true);
  });
});

describe('GET /v1/dashboard/counts, /series, /workers', () => {
  it('answer from the live data', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const q = fx.open({ jobs: [defineJob({ name: 'hold', handler: () => held }), ...jobs()] });
    await q.enqueueMany([{ name: 'w', payload: 1 }, { name: 'w', payload: 2 }]);
    await q.pause('w');
    const { url } = await serve(q);
    // biome-ignore lint/suspicious/noExplicitAny: the test reads each route's own shape
    const get = async (route: string): Promise<any> => (await fetch(url + route)).json();
    const counts = await get('/v1/dashboard/counts');
    expect(counts).toMatchObject({ total: 2, states: { pending: 2 }, names: { pending: { w: 2 } }, paused: { all: false, names: ['w'] } });
    expect(typeof counts.at).toBe('number');

    const running = events(q.events$, (e) => e.to === 'processing', 1);
    const { id } = await q.enqueue('hold', {});
    await q.start();
    await running;
    const workers = await get('/v1/dashboard/workers');
    expect(workers.workers).toHaveLength(1);
    expect(workers.workers[0].running).toMatchObject([{ id, name: 'hold', progress: null }]);
    expect(typeof workers.workers[0].running[0].since).toBe('number');

    const series = await get('/v1/dashboard/series');
    expect(series.throughput.completed).toHaveLength(3600);
    expect(series.latency.p50).toHaveLength(360);
    expect(series.throughput.step).toBe(1000);
    expect(series.backlog.step).toBe(10_000);
    release();
  });
});
