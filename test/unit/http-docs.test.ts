/** docs/reference/http.md has a heading for every route the plugin registers, and no heading for a route it does not. */
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { litejobsHttp } from '../../src/http/index.js';
import { createQueue } from '../../src/index.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';

const page = readFileSync(new URL('../../docs/reference/http.md', import.meta.url), 'utf8');
const documented = [...page.matchAll(/^### `(GET|POST|PUT|PATCH|DELETE) (\S+)`$/gm)].map((m) => `${m[1]} ${m[2]}`);

describe('docs/reference/http.md', () => {
  it('documents exactly the routes the plugin serves', async () => {
    const routes: string[] = [];
    const app = Fastify();
    app.addHook('onRoute', (r) => {
      for (const method of [r.method].flat()) if (method !== 'HEAD') routes.push(`${method} ${r.url}`);
    });
    const db = tempDbPath();
    const queue = createQueue({ path: db.path, logger: silentLogger });
    try {
      await app.register(litejobsHttp, { queue });
      await app.ready();
    } finally {
      await app.close();
      await queue.close();
      db.cleanup();
    }
    expect(routes.length).toBeGreaterThan(10);
    expect([...documented].sort()).toEqual([...new Set(routes)].sort());
  });
});
