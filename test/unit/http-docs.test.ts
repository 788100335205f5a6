/** docs/reference/http.md has a heading for every route the plugin registers, and no heading for a route it does not. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { httpRoutes } from '../helpers/http-routes.js';

const page = readFileSync(new URL('../../docs/reference/http.md', import.meta.url), 'utf8');
const documented = [...page.matchAll(/^### `(GET|POST|PUT|PATCH|DELETE) (\S+)`$/gm)].map((m) => `${m[1]} ${m[2]}`);

describe('docs/reference/http.md', () => {
  it('documents exactly the routes the plugin serves', async () => {
    const routes = await httpRoutes();
    expect(routes.length).toBeGreaterThan(10);
    expect([...documented].sort()).toEqual([...new Set(routes)].sort());
  });
});
