/**
 * A webhook job's payload, checked and turned into the request to send.
 * Checked in the handler (the queue stores any JSON payload): a payload that
 * cannot make a request throws `UnrecoverableError`, so the job goes straight
 * to `dead` instead of spending its attempts on a mistake.
 */
import { UnrecoverableError } from '../errors.js';

/** What a webhook job is enqueued with. */
export interface WebhookPayload {
  /** An `http:` or `https:` URL. */
  url: string;
  /** Default `'POST'`. One of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS (any case). */
  method?: string;
  headers?: Record<string, string>;
  /**
   * A string is sent as it is. Anything else is sent as JSON, with
   * `content-type: application/json` unless `headers` set a content type.
   */
  body?: unknown;
}

/** The request a payload makes. */
export interface WebhookRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export const WEBHOOK_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const PAYLOAD_KEYS = ['url', 'method', 'headers', 'body'];
const MAX_URL = 8192;
/** RFC 9110 `token`: what a header name may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function reject(message: string): never {
  throw new UnrecoverableError(`webhook payload: ${message}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a payload and builds its request; throws `UnrecoverableError` with
 * what is wrong.
 *
 * @example
 * prepareWebhookRequest({ url: 'https://example.com/hook', body: { id: 1 } });
 * // { url: URL, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":1}' }
 */
export function prepareWebhookRequest(payload: unknown): WebhookRequest {
  if (!isPlainObject(payload)) reject('must be an object { url, method?, headers?, body? }');
  for (const key of Object.keys(payload)) {
    if (!PAYLOAD_KEYS.includes(key)) reject(`unknown key "${key}" (allowed: ${PAYLOAD_KEYS.join(', ')})`);
  }
  const url = checkUrl(payload.url);
  const method = checkMethod(payload.method);
  const headers = checkHeaders(payload.headers);
  let body: string | undefined;
  if (payload.body !== undefined) {
    if (method === 'GET' || method === 'HEAD') reject(`a ${method} request cannot have a body`);
    if (typeof payload.body === 'string') body = payload.body;
    else {
      // The payload came out of JSON, so it goes back into JSON.
      body = JSON.stringify(payload.body);
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
  }
  return { url, method, headers, body };
}

function checkUrl(value: unknown): URL {
  if (typeof value !== 'string' || value.length === 0) reject('url must be a non-empty string');
  if (value.length > MAX_URL) reject(`url is longer than ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return reject(`url is not a valid URL: ${JSON.stringify(value.slice(0, 200))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') reject(`url must be http: or https:, got ${url.protocol}`);
  // Refused rather than dropped: the receiver would see a request without them and answer 401.
  if (url.username !== '' || url.password !== '') reject('url must not hold credentials: send them in an authorization header');
  url.hash = '';
  return url;
}

function checkMethod(value: unknown): string {
  if (value === undefined) return 'POST';
  if (typeof value !== 'string') reject('method must be a string');
  const method = value.toUpperCase();
  if (!(WEBHOOK_METHODS as readonly string[]).includes(method)) {
    reject(`method must be one of ${WEBHOOK_METHODS.join(', ')}, got ${JSON.stringify(value.slice(0, 50))}`);
  }
  return method;
}

/**
 * Headers the connection sets: a payload cannot name them. `Host` chosen by a
 * payload would reach another site behind an allowed target's address; the
 * framing headers would let it split or smuggle requests.
 */
const CONNECTION_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-connection']);

function checkHeaders(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) reject('headers must be an object of header name → string value');
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [name, v] of Object.entries(value)) {
    if (!TOKEN.test(name)) reject(`header name ${JSON.stringify(name.slice(0, 100))} is not a valid HTTP header name`);
    if (CONNECTION_HEADERS.has(name.toLowerCase())) reject(`header "${name}" belongs to the connection, not to the payload (the URL names the host)`);
    if (seen.has(name.toLowerCase())) reject(`header "${name}" is given twice (names are case-insensitive)`);
    seen.add(name.toLowerCase());
    if (typeof v !== 'string') reject(`header "${name}" must be a string, got ${v === null ? 'null' : typeof v}`);
    if (/[\r\n\0]/.test(v)) reject(`header "${name}" must not contain CR, LF or NUL`);
    headers[name] = v;
  }
  return headers;
}
