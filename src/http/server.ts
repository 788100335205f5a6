/**
 * The standalone server `litejobs serve` runs: the plugin on a fastify
 * instance of its own, bound to loopback unless a token protects it.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { LitejobsError } from '../errors.js';
import { isLoopback } from './auth.js';
import { toErrorReply } from './errors.js';
import { litejobsHttp, type LitejobsHttpOptions } from './plugin.js';
import { SECURITY_HEADERS } from './request-guard.js';

/** How long a whole request may take to arrive, ms (a slow body is cut off after it). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How long a request's headers may take to arrive, ms: a client that dribbles them holds its connection no longer. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** Connections open at once, at most, and from one client address (beyond them a new connection is closed at once). */
export const MAX_CONNECTIONS = 4096;
export const MAX_CONNECTIONS_PER_CLIENT = 256;

/** What Node's parser reports before fastify sees a request, as the status, reason and message answered. */
const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'the request did not arrive whole in time'],
};

/** Longest path parameter as sent (percent-encoded): a 200-character group of 3-byte UTF-8 characters. */
export const MAX_PARAM_LENGTH = 200 * 9;

export interface ServerOptions extends Omit<LitejobsHttpOptions, 'prefix' | 'allowedHosts'> {
  /** Default `127.0.0.1`. Any other address needs a `token`. */
  host?: string;
  /**
   * `Host` header values answered besides the bound address (`jobs.example.com`,
   * `jobs.example.com:8443`). Bound to loopback or to one address, that
   * address (and `localhost` on loopback) is answered too and any other Host
   * refused (DNS rebinding); bound to every interface (`0.0.0.0`, `::`) with
   * none given, any Host is answered.
   */
  allowedHosts?: readonly string[];
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** How long a whole request may take to arrive, ms. Default 30 000. */
  requestTimeout?: number;
  /** How long a request's headers may take to arrive, ms. Default 10 000 (at most `requestTimeout`). */
  headersTimeout?: number;
  /**
   * Connections open at once, at most (default 4096), and from one client
   * address (default 256); a connection beyond either is closed at once, so
   * clients that open connections and dribble on them cannot exhaust the
   * process. Behind a proxy every connection comes from the proxy's address:
   * raise the second to the proxy's pool, and bound clients at the proxy.
   */
  maxConnections?: number;
  maxConnectionsPerClient?: number;
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

/** The security headers as raw header lines, for the answers written to the socket before fastify has a request. */
const RAW_SECURITY_HEADERS = Object.entries(SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const {
    host = '127.0.0.1',
    port = 3000,
    logger,
    allowedHosts = [],
    requestTimeout = REQUEST_TIMEOUT_MS,
    headersTimeout = HEADERS_TIMEOUT_MS,
    maxConnections = MAX_CONNECTIONS,
    maxConnectionsPerClient = MAX_CONNECTIONS_PER_CLIENT,
    ...plugin
  } = options;
  for (const [name, value] of [['maxConnections', maxConnections], ['maxConnectionsPerClient', maxConnectionsPerClient], ['headersTimeout', headersTimeout]] as const) {
    if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`startServer: ${name} must be a whole number ≥ 1`);
  }
  if (!isLoopback(host) && !plugin.token) {
    throw new LitejobsError('LJ_ERR_UNSAFE_BIND', `refusing to listen on ${host} without a token: set --token or LITEJOBS_TOKEN, or bind 127.0.0.1`);
  }
  const app = Fastify({
    ...(logger ? { loggerInstance: logger as FastifyBaseLogger } : { logger: false }),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: plugin.batchBodyLimit ?? 16 * 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // A request must arrive whole within this: a client dribbling its body holds a connection no longer.
    // Node looks for such requests every connectionsCheckingInterval (30 s by default): often enough here.
    requestTimeout,
    serverFactory: (handler) => {
      const server = createServer({ requestTimeout, headersTimeout: Math.min(headersTimeout, requestTimeout), connectionsCheckingInterval: Math.min(1000, requestTimeout) }, handler);
      boundConnections(server, maxConnections, maxConnectionsPerClient);
      return server;
    },
    // Errors fastify or Node answer before any route runs get the API's error shape too.
    frameworkErrors: (err, _request, reply) => {
      const { status, body } = toErrorReply(err);
      void (reply as unknown as FastifyReply).code(status).headers(SECURITY_HEADERS).send(body);
    },
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return socket.destroy();
      const [status, reason, message] = CLIENT_ERRORS[(err as { code?: string }).code ?? ''] ?? [400, 'Bad Request', 'malformed request'];
      const body = JSON.stringify({ error: { code: 'LJ_ERR_VALIDATION', message } });
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${RAW_SECURITY_HEADERS}Connection: close\r\n\r\n${body}`);
    },
    // A group in a URL (`/v1/groups/:group/…`) may be 200 characters, each up to 9 when percent-encoded; fastify's default is 100.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  });
  let hosts: readonly string[] | undefined;
  await app.register(litejobsHttp, { ...plugin, allowedHosts: () => hosts });
  app.get('/favicon.ico', async (_request, reply) => reply.type('image/svg+xml').headers(SECURITY_HEADERS).header('cache-control', 'max-age=86400').send(FAVICON));
  await app.listen({ host, port });
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  hosts = hostsAnswered(shownHost, bound, allowedHosts);
  return { url: `http://${shownHost}:${bound}`, app, close: () => app.close() };
}

/**
 * Whose connection it is, for the per-client bound: an IPv4 address (written
 * as IPv6 or not), or an IPv6 address's /64, which one client holds whole
 * (a client counted by its full address would fill the server from sixteen
 * of its addresses).
 */
export function clientOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}

/** Closes at once a connection past the server's bound, or past the bound of its client's address. */
function boundConnections(server: Server, total: number, perClient: number): void {
  server.maxConnections = total;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const client = clientOf(socket.remoteAddress ?? '');
    const n = open.get(client) ?? 0;
    if (n >= perClient) {
      socket.destroy();
      return;
    }
    open.set(client, n + 1);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    });
  });
}

const WILDCARDS = new Set(['0.0.0.0', '[::]', '[::0]', '::']);

/** The Host values a server bound to `host:port` answers to: see ServerOptions `allowedHosts`. */
export function hostsAnswered(host: string, port: number, extra: readonly string[]): readonly string[] | undefined {
  const named = extra.map((h) => h.toLowerCase());
  if (WILDCARDS.has(host)) return named.length > 0 ? named : undefined;
  const own = isLoopback(host) ? [host, 'localhost', '127.0.0.1', '[::1]'] : [host];
  // A browser leaves the port out of Host for the scheme's default one.
  const withPorts = own.flatMap((h) => (port === 80 || port === 443 ? [h, `${h}:${port}`] : [`${h}:${port}`]));
  return [...new Set([...withPorts.map((h) => h.toLowerCase()), ...named])];
}
