/**
 * The dashboard's live data: counts, the hour's series, workers and the
 * overview per job name as JSON, and the change feed as Server-Sent Events
 * (`GET /v1/dashboard/events`).
 *
 * The routes own `live`: it is closed with the fastify instance. Open event
 * streams are ended first (`preClose`): the server waits for its connections
 * to end before it closes, and a stream never would.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { SECURITY_HEADERS } from '../request-guard.js';
import type { FeedMessage } from '../../live/change-feed.js';
import type { DashboardLive } from '../../live/live.js';

/** A comment line this often keeps proxies and the page from taking a quiet stream for a dead one. */
export const PING_MS = 15_000;

/** One SSE message: `id:`, `event:` and `data:` lines, then a blank line. */
export function formatEvent(message: FeedMessage): string {
  const id = message.event === 'tick' ? `id: ${message.id}\n` : '';
  return `${id}event: ${message.event}\ndata: ${JSON.stringify(message.data)}\n\n`;
}

export function dashboardLiveRoutes(app: FastifyInstance, live: DashboardLive): void {
  const streams = new Set<ServerResponse>();

  app.get('/v1/dashboard/counts', async () => live.counts());
  app.get('/v1/dashboard/series', async () => live.series());
  app.get('/v1/dashboard/workers', async () => live.workers());
  app.get('/v1/dashboard/overview', async () => live.overview());

  app.get('/v1/dashboard/events', async (request, reply) => {
    // HEAD (fastify answers it with this GET route): the headers, and no stream that would never end.
    if (request.method === 'HEAD') return reply.type('text/event-stream; charset=utf-8').header('cache-control', 'no-cache').send();
    const header = request.headers['last-event-id'];
    const lastEventId = Array.isArray(header) ? header[0] : header;
    // The first ticks wait for the counts: fastify still owns the reply until then, and errors as JSON.
    const messages: string[] = [];
    let res: ServerResponse | undefined;
    const send = (message: FeedMessage) => {
      const text = formatEvent(message);
      if (res) res.write(text);
      else messages.push(text);
    };
    const unsubscribe = await live.subscribe(send, lastEventId);
    reply.hijack();
    res = reply.raw;
    // Hijacked: fastify's onSend hooks do not run, so the security headers are written here.
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    for (const text of messages) res.write(text);
    streams.add(res);
    const ping = setInterval(() => res?.write(': ping\n\n'), PING_MS);
    ping.unref();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(ping);
      unsubscribe();
      streams.delete(res!);
    };
    request.raw.on('close', end);
    res.on('close', end);
  });

  // Before the server waits for its connections to end: an open stream never would.
  app.addHook('preClose', async () => {
    for (const res of [...streams]) res.end();
    streams.clear();
  });
  app.addHook('onClose', async () => {
    for (const res of [...streams]) res.end();
    await live.close();
  });
}
