/**
 * What every request to the plugin's routes must be, before any route runs,
 * and what every answer carries:
 *
 * - A request that changes something (any method but GET, HEAD, OPTIONS) is
 *   not cross-site, and a POST is `application/json` (a hook also takes
 *   `application/…+json`). A browser sends a form or a `text/plain` POST to
 *   any origin without asking first; it sends JSON, or a PUT or DELETE, to
 *   another origin only after a CORS preflight, which this API never
 *   grants. And a browser says where a
 *   request comes from: `Sec-Fetch-Site` other than `same-origin` (or
 *   `none`, typed by the user), or an `Origin` whose host is neither the
 *   request's own nor one of `allowedHosts`, is refused (403
 *   `LJ_ERR_CROSS_SITE`). Servers sending
 *   webhooks send neither header.
 * - The request target is a path and there is one `Host` (400 otherwise).
 * - With `allowedHosts`, the `Host` header must be one of them (421
 *   `LJ_ERR_HOST_NOT_ALLOWED`): a page on a domain the attacker points at
 *   127.0.0.1 (DNS rebinding) then reaches nothing. `/healthz` is exempt: a
 *   load balancer asks by address.
 * - Every answer carries a Content-Security-Policy (scripts from this origin
 *   only, no framing: `frame-ancestors 'none'`), `X-Content-Type-Options:
 *   nosniff` and `Referrer-Policy: no-referrer`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;

export interface RequestGuardOptions {
  /** `Host` header values answered (`host:port` as a browser sends it, lower case); absent: any. */
  allowedHosts?: () => readonly string[] | undefined;
}

/** Refuses a request that changes something and that a browser sent from another site, or a POST that is not JSON. */
function checkAction(request: FastifyRequest, allowed: readonly string[] | undefined): void {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new HttpError(403, 'LJ_ERR_CROSS_SITE', `refused: a ${String(site)} request (Sec-Fetch-Site); actions come from this server's own pages or from clients that are not browsers`);
  }
  const origin = request.headers.origin;
  if (origin !== undefined) {
    let host: string | null;
    try {
      host = origin === 'null' ? null : new URL(origin).host;
    } catch {
      host = null;
    }
    // The request's own Host, or one the server answers to (a proxy may rewrite Host to the upstream's address).
    if (host === null || (host !== request.headers.host?.toLowerCase() && !allowed?.includes(host))) {
      throw new HttpError(403, 'LJ_ERR_CROSS_SITE', `refused: Origin ${origin} is not this server (${request.headers.host ?? 'no Host'})`);
    }
  }
  // Any other media type has no parser here: fastify answers 415 when it reads the body (after the token check).
  // A hook answers for its own body: a signed one checks its signature first, whatever the body's type.
  const type = request.headers['content-type'];
  if (request.method === 'POST' && type === undefined && !request.routeOptions.url?.endsWith('/v1/hooks/:name')) {
    throw new HttpError(415, 'LJ_ERR_UNSUPPORTED_MEDIA_TYPE', 'send the request as application/json; an empty JSON body means {}');
  }
}

/**
 * One Host, and a path as the request target: `POST http://other/v1/… HTTP/1.1`
 * (absolute form, whose authority a proxy would route by while the Host check
 * read the header) and a second Host header are refused, not resolved one
 * way here and another way in front.
 */
function checkFraming(request: FastifyRequest): void {
  if (request.raw.url?.charCodeAt(0) !== 0x2f) throw new HttpError(400, 'LJ_ERR_VALIDATION', 'the request target must be a path (/…), not an absolute URL');
  const raw = request.raw.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) throw new HttpError(400, 'LJ_ERR_VALIDATION', 'one Host header, not several');
}

export function guardRequests(app: FastifyInstance, o: RequestGuardOptions = {}): void {
  // Bodies are JSON here: fastify's text/plain parser would let a form-like POST through to a route.
  app.removeContentTypeParser('text/plain');
  // One hook for all of it: every hook a request passes through costs (an onSend hook alone was ~5% of a hook's throughput).
  app.addHook('onRequest', async (request, reply) => {
    // Set first, so that every answer carries them, errors included.
    reply.headers(SECURITY_HEADERS);
    checkFraming(request);
    const allowed = o.allowedHosts?.();
    if (allowed && !request.routeOptions.url?.endsWith('/healthz')) {
      const host = request.headers.host?.toLowerCase();
      if (host === undefined || !allowed.includes(host)) {
        throw new HttpError(421, 'LJ_ERR_HOST_NOT_ALLOWED', `this server answers to ${allowed.join(', ')}, not to Host ${host ?? '(none)'}`);
      }
    }
    if (!SAFE_METHODS.has(request.method)) checkAction(request, allowed);
  });
}
