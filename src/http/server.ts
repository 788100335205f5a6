/**
 * The standalone server `litejobs serve` runs: the plugin on a fastify
 * instance of its own, bound to loopback unless a token protects it.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { LitejobsError } from '../errors.js';
import { isLoopback } from './auth.js';
import { litejobsHttp, type LitejobsHttpOptions } from './plugin.js';

/** Longest path parameter as sent (percent-encoded): a 200-character group of 3-byte UTF-8 characters. */
export const MAX_PARAM_LENGTH = 200 * 9;

export interface ServerOptions extends Omit<LitejobsHttpOptions, 'prefix'> {
  /** Default `127.0.0.1`. Any other address needs a `token`. */
  host?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Request errors are logged here; requests themselves are not (one line per webhook would swamp it). */
  logger?: Logger;
}

export interface RunningServer {
  /** `http://host:port`, as bound. */
  readonly url: string;
  readonly app: FastifyInstance;
  /** Stops accepting, lets requests in flight finish, closes. The queue stays open. */
  close(): Promise<void>;
}

/** A 16×16 mark, so a browser's request for /favicon.ico is answered (a 404 there is a console error). */
const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2f6f4f"/><path d="M4 4v8h7" stroke="#fff" stroke-width="2" fill="none"/></svg>';

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { host = '127.0.0.1', port = 3000, logger, ...plugin } = options;
  if (!isLoopback(host) && !plugin.token) {
    throw new LitejobsError('LJ_ERR_UNSAFE_BIND', `refusing to listen on ${host} without a token: set --token or LITEJOBS_TOKEN, or bind 127.0.0.1`);
  }
  const app = Fastify({
    ...(logger ? { loggerInstance: logger as FastifyBaseLogger } : { logger: false }),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: plugin.batchBodyLimit ?? 16 * 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // A group in a URL (`/v1/groups/:group/…`) may be 200 characters, each up to 9 when percent-encoded; fastify's default is 100.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  });
  await app.register(litejobsHttp, plugin);
  app.get('/favicon.ico', async (_request, reply) => reply.type('image/svg+xml').header('cache-control', 'max-age=86400').send(FAVICON));
  await app.listen({ host, port });
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shownHost}:${bound}`, app, close: () => app.close() };
}
