/** Every route litejobsHttp registers, as `METHOD /path` (HEAD left out): what the HTTP docs and the model's alphabet are checked against. */
import Fastify from 'fastify';
import { litejobsHttp } from '../../src/http/index.js';
import { createQueue, type Queue } from '../../src/index.js';
import { silentLogger } from './silent-logger.js';
import { tempDbPath } from './temp-db.js';

/** With `queue`: that queue's plugin; without: a queue of its own on a temp file, closed and removed after. */
export async function httpRoutes(queue?: Queue): Promise<string[]> {
  if (queue === undefined) return withQueue((q) => httpRoutes(q));
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

/** Runs `fn` with a queue on a temp file, then closes it and removes the file. */
export async function withQueue<T>(fn: (queue: Queue) => Promise<T> | T): Promise<T> {
  const db = tempDbPath();
  const queue = createQueue({ path: db.path, logger: silentLogger });
  try {
    return await fn(queue);
  } finally {
    await queue.close();
    db.cleanup();
  }
}
