/**
 * The dashboard's page: `index.html` at the mount point, with the mount
 * prefix written in, and its built assets under `/dashboard/assets/`. No
 * token is asked for these (a browser cannot send one for a page load and
 * they hold no data); the page asks for it before it reads anything.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../errors.js';

/**
 * `npm run build` writes the page to dist/dashboard/. From the package this
 * module is dist/src/http/routes/; from the sources (tests, tsx) it is
 * src/http/routes/, and the build output sits under dist/ beside them.
 */
const CANDIDATES = ['../../../dashboard/', '../../../dist/dashboard/'].map((p) => fileURLToPath(new URL(p, import.meta.url)));

export function dashboardDirectory(): string | undefined {
  return CANDIDATES.find((dir) => existsSync(`${dir}assets/app.js`) && existsSync(`${dir}index.html`));
}

export async function dashboardPage(app: FastifyInstance): Promise<void> {
  const dir = dashboardDirectory();
  // The prefix as fastify applies it to this context ('' at the root).
  const base = app.prefix.replace(/\/$/, '');
  let html: string | undefined;
  if (dir) {
    html = readFileSync(`${dir}index.html`, 'utf8').replaceAll('%LITEJOBS_BASE%', base);
    await app.register(fastifyStatic, { root: `${dir}assets`, prefix: '/dashboard/assets/', decorateReply: false, index: false, maxAge: '1h' });
  }
  app.get('/', async (_request, reply) => {
    if (html === undefined) throw new HttpError(404, 'LJ_ERR_NOT_FOUND', 'the dashboard is not built: run `npm run build`');
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
  });
}
