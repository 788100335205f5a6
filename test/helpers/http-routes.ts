/** Every route litejobsHttp registers, as `METHOD /path` (HEAD left out): what the HTTP docs and the model's alphabet are checked against. */
import Fastify from 'fastify';
import { litejobsHttp } from '../../src/http/index.js';
import type { Queue } from '../../src/index.js';

export async function httpRoutes(queue: Queue): Promise<string[]> {
  const routes: string[] = [];
  const app = Fastify();
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) if (method !== 'HEAD') routes.push(`${method} ${r.url}`);
  });
  try {
    await app.register(litejobsHttp, { queue });
    await app.ready();
  } finally {
    await app.close();
  }
  return routes;
}
