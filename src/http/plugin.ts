/**
 * `litejobs/http`: the HTTP API as a fastify plugin.
 *
 *   app.register(litejobsHttp, { queue, token, prefix: '/jobs' })
 *
 * Everything inside is encapsulated: its schema validator (unknown fields are
 * a 400, never stripped), its error shape and its auth hook apply to these
 * routes only, not to the application's own.
 */
import { Ajv } from 'ajv';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Queue } from '../queue.js';
import { bearerCheck } from './auth.js';
import { HttpError, toErrorReply } from './errors.js';
import { guardRequests } from './request-guard.js';
import { createLargeBodyGate } from './large-body-gate.js';
import { changedNumber, numberNotKept } from '../lib/json-numbers.js';
import { createQueueMetrics } from './metrics.js';
import { controlRoutes } from './routes/control.js';
import { scheduleRoutes } from './routes/schedules.js';
import { limitRoutes } from './routes/limits.js';
import { createDashboardLive } from '../live/live.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { dashboardLiveRoutes } from './routes/dashboard-live.js';
import { dashboardPage } from './routes/dashboard-page.js';
import { checkHooks, hookRoutes, type HookNames, type HookOptions } from './routes/hooks.js';
import { internalsOf } from '../queue-internals.js';
import type { Tracing } from '../telemetry/tracing.js';
import { jobRoutes } from './routes/jobs.js';
import { jobActionRoutes } from './routes/job-actions.js';
import { signalRoutes } from './routes/signals.js';
import { flowRoutes } from './routes/flows.js';

export interface LitejobsHttpOptions {
  // biome-ignore lint/suspicious/noExplicitAny: a queue typed with any job map is accepted
  queue: Queue<any>;
  /** Require `Authorization: Bearer <token>` on every route but `/healthz`. */
  token?: string;
  /** Mount point; fastify applies it to every route. */
  prefix?: string;
  /** Per-hook settings for `POST /v1/hooks/:name` (signatures, idempotency header, forwarding). */
  hooks?: Record<string, HookOptions>;
  /**
   * Refuse hooks not listed in `hooks` (404). Default: true when `hooks`
   * lists any. Otherwise an unlisted name is accepted only when it is a job
   * the queue defines or declares (not the built-in `webhook` job).
   */
  onlyListedHooks?: boolean;
  /** Largest request body, bytes (413 above). Default 1 MiB, the engine's payload limit. */
  bodyLimit?: number;
  /** Largest `POST /v1/jobs/batch` (and `/v1/batches`, `/v1/flows`) body, bytes. Default 16 MiB. Large ones (a batch over `bodyLimit`, a flow over 64 KiB) are taken one at a time. */
  batchBodyLimit?: number;
  /** Serve `GET /metrics` (Prometheus). Default true; `{ processMetrics: true }` adds Node's own. */
  metrics?: boolean | { processMetrics?: boolean };
  /** Serve the dashboard at `/` (and its API under `/v1/dashboard`). Default true. */
  dashboard?: boolean;
  /** Write nothing: every request that would change something (actions, enqueueing, hooks) is refused with 403 `LJ_ERR_READ_ONLY`; reads and the dashboard work. */
  readOnly?: boolean;
  /**
   * The `Host` header values answered (`host:port`, as browsers send it);
   * any other is refused with 421 `LJ_ERR_HOST_NOT_ALLOWED` (DNS
   * rebinding). Absent: any Host (the application in front decides).
   * `litejobs serve` sets it to its bound address.
   */
  allowedHosts?: readonly string[] | (() => readonly string[] | undefined);
  /**
   * Enqueue in the trace an incoming `traceparent` header names (W3C Trace
   * Context), when the queue traces. Default true. A hook authenticated by
   * its signature never does (its caller is a third party); false: no
   * request does (the callers are not trusted to choose a trace or its
   * sampling).
   */
  acceptTraceparent?: boolean;
}

const OPTION_KEYS = ['queue', 'token', 'prefix', 'hooks', 'onlyListedHooks', 'bodyLimit', 'batchBodyLimit', 'metrics', 'dashboard', 'readOnly', 'allowedHosts', 'acceptTraceparent'];
const MiB = 1024 * 1024;

/** Validators of this plugin: bodies as sent; params and query strings coerced from text. */
function validators() {
  const common = { removeAdditional: false, useDefaults: true, allErrors: false, strict: true } as const;
  const body = new Ajv({ ...common, coerceTypes: false });
  const text = new Ajv({ ...common, coerceTypes: true });
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) => (httpPart === 'body' ? body : text).compile(schema);
}

const plugin: FastifyPluginAsync<LitejobsHttpOptions> = async (app: FastifyInstance, options) => {
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) throw new TypeError(`litejobsHttp: unknown option "${key}" (allowed: ${OPTION_KEYS.join(', ')})`);
  }
  const { queue } = options;
  if (!queue || typeof queue.enqueue !== 'function') throw new TypeError('litejobsHttp: the `queue` option is required');
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token.length < 8)) {
    throw new TypeError('litejobsHttp: `token` must be a string of at least 8 characters');
  }
  if (options.acceptTraceparent !== undefined && typeof options.acceptTraceparent !== 'boolean') throw new TypeError('litejobsHttp: `acceptTraceparent` must be a boolean');
  const hooks = options.hooks ?? {};
  checkHooks(hooks);
  // Own entries only, in a Map: `constructor` or `toString` must not find an object's inherited members.
  const listed = new Map(Object.entries(hooks));
  const hookNames: HookNames = {
    listed,
    onlyListed: options.onlyListedHooks ?? listed.size > 0,
    jobs: internalsOf(queue).jobNames,
  };
  const bodyLimit = options.bodyLimit ?? MiB;

  const allowedHosts = options.allowedHosts;
  if (allowedHosts !== undefined && typeof allowedHosts !== 'function' && (!Array.isArray(allowedHosts) || allowedHosts.some((h) => typeof h !== 'string' || h.length === 0))) {
    throw new TypeError('litejobsHttp: `allowedHosts` must be an array of host[:port] strings');
  }
  const hostList = typeof allowedHosts === 'function' ? allowedHosts : allowedHosts === undefined ? undefined : () => allowedHosts.map((h) => h.toLowerCase());
  // JSON actions only, nothing cross-site, the Host checked; security headers on every answer.
  guardRequests(app, hostList ? { allowedHosts: hostList } : {});

  app.setValidatorCompiler(validators());
  // An empty JSON body means {} (a bare `POST …/retry` from a client that sets the JSON content type).
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, body, done) => {
    if (body === '') return done(null, {});
    // A number JavaScript would change (1e999, 12345678901234567891) is refused, not stored changed.
    const changed = changedNumber(body as string);
    if (changed !== null) return done(new HttpError(400, 'LJ_ERR_VALIDATION', `${numberNotKept(changed)}: send it as a string`));
    parseJson(request, body as string, done);
  });
  // No text a database keeps holds a NUL (PostgreSQL's cannot), so none is asked about: a query or path value with one is
  // a client's mistake (400), not a statement the database refuses (503).
  app.addHook('preValidation', async (request) => {
    const nul = nulIn(request.query) ?? nulIn(request.params);
    if (nul !== undefined) throw new HttpError(400, 'LJ_ERR_VALIDATION', `${nul} must not contain a NUL character`);
  });
  app.setErrorHandler((err, request, reply) => {
    const { status, body } = toErrorReply(err);
    if (status >= 500) request.log.error({ err }, 'request failed');
    void reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: { code: 'LJ_ERR_NOT_FOUND', message: `no route ${request.method} ${request.url}` } });
  });

  // No token asked: a load balancer polls it. 503 when the database does not answer.
  app.get('/healthz', async () => {
    await queue.ping();
    return { ok: true };
  });

  // The page and its assets hold no data: a browser loads them without a token, then asks for it.
  const withDashboard = options.dashboard !== false;
  if (withDashboard) await app.register(dashboardPage);

  // Every other route sits in a context whose requests must carry the token.
  await app.register(async (authed) => {
    if (options.token !== undefined) {
      const allowed = bearerCheck(options.token);
      authed.addHook('onRequest', async (request) => {
        // A hook with a secret is authenticated by its signature (a provider cannot send the token); any other needs the token.
        if (signedHook(request, hookNames)) return;
        if (!allowed(request.headers.authorization)) throw new HttpError(401, 'LJ_ERR_UNAUTHORIZED', 'send Authorization: Bearer <token>');
      });
    }
    if (options.readOnly === true) {
      // Read-only writes nothing: no action, and no enqueue either (a debounced enqueue rewrites a pending job).
      authed.addHook('onRequest', async (request) => {
        if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS') {
          throw new HttpError(403, 'LJ_ERR_READ_ONLY', 'this server is read-only: it changes nothing (no actions, no enqueueing, no hooks)');
        }
      });
    }
    if (options.acceptTraceparent !== false) traceIncoming(authed, internalsOf(queue).tracing, (request) => !signedHook(request, hookNames));
    // Large bodies one at a time: memory and /healthz stay bounded under several at once.
    const gate = createLargeBodyGate();
    jobRoutes(authed, queue, { batchBodyLimit: options.batchBodyLimit ?? 16 * MiB, bodyLimit, gate });
    jobActionRoutes(authed, queue);
    signalRoutes(authed, queue);
    flowRoutes(authed, queue, { bodyLimit: options.batchBodyLimit ?? 16 * MiB, gate });
    controlRoutes(authed, queue);
    scheduleRoutes(authed, queue);
    limitRoutes(authed, queue);
    if (withDashboard) {
      const live = createDashboardLive(queue);
      dashboardRoutes(authed, queue, { readOnly: options.readOnly === true, live });
      // These routes own the live data: they close it with the server.
      dashboardLiveRoutes(authed, live);
    }
    // In a context of its own: its body parser keeps the raw body, for these routes only.
    await authed.register(async (hookApp) => hookRoutes(hookApp, queue, hookNames, bodyLimit));
    if (options.metrics !== false) {
      const metrics = createQueueMetrics(queue, typeof options.metrics === 'object' ? options.metrics : {});
      authed.addHook('onClose', async () => metrics.stop());
      authed.get('/metrics', async (_request, reply) => {
        const text = await metrics.registry.metrics();
        return reply.type(metrics.registry.contentType).send(text);
      });
    }
  });
};

// Marks the plugin so fastify shows its name in errors and `printPlugins`.
Object.defineProperty(plugin, 'name', { value: 'litejobs-http' });

export const litejobsHttp = plugin;

/** A request to a listed hook that has a secret: its route checks the signature instead of the token. */
function signedHook(request: FastifyRequest, names: HookNames): boolean {
  if (request.method !== 'POST' || !request.routeOptions.url?.endsWith('/v1/hooks/:name')) return false;
  const name = (request.params as { name?: unknown }).name;
  return typeof name === 'string' && names.listed.get(name)?.secret !== undefined;
}

/**
 * Every route of this context runs in the trace its request's `traceparent`
 * header names (W3C Trace Context), so the jobs it enqueues carry it, when
 * `trusted(request)`. An HTTP instrumentation in the application, when there
 * is one, already made the request's span the active one: that span is kept.
 */
function traceIncoming(app: FastifyInstance, tracing: Tracing, trusted: (request: FastifyRequest) => boolean): void {
  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function tracedHandler(request, reply) {
      if (request.headers.traceparent === undefined || !trusted(request)) return handler.call(this, request, reply);
      return tracing.incoming(request.headers.traceparent, request.headers.tracestate, () => handler.call(this, request, reply));
    };
  });
}

/** The name of the first query or path value holding a NUL, if any. */
function nulIn(values: unknown): string | undefined {
  if (typeof values !== 'object' || values === null) return undefined;
  for (const [name, value] of Object.entries(values)) {
    for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'string' && v.includes('\0')) return name;
  }
  return undefined;
}
