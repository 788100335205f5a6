/**
 * The demo's webhook receiver: a local HTTP server standing in for a
 * client's endpoint. It fails now and then, as real ones do, so the demo
 * shows retries: about one request in five gets a 500, one in ten a 429 with
 * `Retry-After: 1`; the rest are taken (200). `GET /` reports what it saw.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
export { seededRandom } from '../lib/seeded-random.js';

export interface DemoSink {
  url: string;
  counts: { ok: number; failed: number; limited: number };
  close(): Promise<void>;
}

export async function startDemoSink(options: { port?: number; random?: () => number } = {}): Promise<DemoSink> {
  const random = options.random ?? Math.random;
  const counts = { ok: 0, failed: 0, limited: 0 };
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts));
      return;
    }
    request.resume();
    request.on('end', () => {
      const roll = random();
      if (roll < 0.2) {
        counts.failed++;
        response.writeHead(500, { 'content-type': 'text/plain' }).end('receiver having a bad moment');
      } else if (roll < 0.3) {
        counts.limited++;
        response.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' }).end('slow down');
      } else {
        counts.ok++;
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      }
    });
  });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

