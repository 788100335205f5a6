/**
 * One delivery attempt: sends the request with undici, reads at most an
 * excerpt of the answer, and turns it into a result (2xx) or a
 * `WebhookDeliveryError` whose code tells the job machine what to do next.
 */
import { STATUS_CODES } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { WebhookDeliveryError, type WebhookResponseInfo } from './delivery-error.js';
import type { WebhookRequest } from './payload.js';
import { parseRetryAfter } from './retry-after.js';
import { startClientSpan } from '../telemetry/http-client-span.js';
import { loadUndici } from './undici.js';

/** What a delivered webhook job keeps as its result. */
export interface WebhookResult extends WebhookResponseInfo {
  /** From sending the request to the end of the excerpt. */
  durationMs: number;
}

export interface DeliverySettings {
  dispatcher: Dispatcher;
  maxBodyExcerpt: number;
  /** Cap on a `Retry-After` wait: the retry policy's `maxDelay`. */
  maxDelay: number;
  /** The handler's signal: timeout, cancel, lost lease and shutdown abort the request. */
  signal: AbortSignal;
  /** The attempt is traced: the request is an HTTP client span whose context the receiver gets in `traceparent`. */
  traced?: boolean;
}

/** The response headers worth keeping: what it is, where it points, and the receiver's id for it. */
const KEPT_HEADERS = ['content-type', 'content-length', 'location', 'request-id', 'x-request-id'];
/** Receivers that may ask to be called later with `Retry-After`. */
const RETRY_AFTER_STATUSES = [429, 503];
/** A `Retry-After` of 0 or a past date is read as this, so a receiver answering so is not called in a tight loop. */
const MIN_RETRY_AFTER_MS = 1000;
/** undici's codes for a request it refuses to send: sending it again would not help. */
const REFUSED_REQUEST_CODES = ['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED', 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH'];

/** True for the answers worth trying again: timeout, rate limit, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

export async function deliver(req: WebhookRequest, settings: DeliverySettings): Promise<WebhookResult> {
  const target = `${req.method} ${req.url.origin}`; // never the path or query: they often hold the hook's secret
  const span = startClientSpan(settings.traced === true, req.method, req.url, req.headers);
  const started = performance.now();
  let res: Dispatcher.ResponseData;
  let body: string;
  try {
    const { request } = await loadUndici();
    res = await request(req.url, {
      method: req.method as Dispatcher.HttpMethod,
      headers: span?.headers ?? req.headers,
      body: req.body ?? null,
      signal: settings.signal,
      dispatcher: settings.dispatcher,
    });
    body = await readExcerpt(res.body, settings.maxBodyExcerpt, settings.signal);
  } catch (err) {
    span?.failed(err);
    throw settings.signal.aborted ? err : requestFailed(target, err);
  }
  const status = res.statusCode;
  span?.answered(status);
  const response: WebhookResponseInfo = { status, headers: keptHeaders(res.headers), body };
  if (status >= 200 && status <= 299) return { ...response, durationMs: Math.round(performance.now() - started) };

  const answered = `${target} answered ${status} ${res.statusText || STATUS_CODES[status] || ''}`.trimEnd();
  const retryAfter = RETRY_AFTER_STATUSES.includes(status) ? firstValue(res.headers['retry-after']) : undefined;
  const asked = retryAfter === undefined ? undefined : parseRetryAfter(retryAfter, Date.now());
  if (asked !== undefined) {
    // An absurd Retry-After (days, years) waits no longer than the policy lets any retry wait.
    const delay = Math.min(settings.maxDelay, Math.max(MIN_RETRY_AFTER_MS, asked));
    const capped = delay < asked ? ` (capped at maxDelay ${settings.maxDelay} ms)` : '';
    throw new WebhookDeliveryError('LJ_ERR_RETRY_LATER', `${answered} with Retry-After: ${retryAfter}; running again in ${delay} ms${capped}`, { response, delay });
  }
  if (isRetryableStatus(status)) throw new WebhookDeliveryError('LJ_ERR_WEBHOOK_DELIVERY', answered, { response });
  throw new WebhookDeliveryError('LJ_ERR_UNRECOVERABLE', `${answered}: not retried, only 2xx counts as delivered and only 408, 429 and 5xx are retried`, { response });
}

/** No answer: a network failure is retried, a request the client refuses is not. */
function requestFailed(target: string, err: unknown): WebhookDeliveryError {
  const code = (err as { code?: unknown } | null)?.code;
  const why = describe(err);
  // The resolver answered only private addresses (targets.ts): not this job's to reach, now or later.
  if (code === 'LJ_PRIVATE_ADDRESS' || (err instanceof AggregateError && err.errors.some((e) => (e as { code?: unknown }).code === 'LJ_PRIVATE_ADDRESS'))) {
    return new WebhookDeliveryError('LJ_ERR_UNRECOVERABLE', `${target} cannot be sent: ${why}; allowPrivate lets the job send there (litejobs serve --allow-private-targets)`, { cause: err });
  }
  if (typeof code === 'string' && REFUSED_REQUEST_CODES.includes(code)) {
    return new WebhookDeliveryError('LJ_ERR_UNRECOVERABLE', `${target} cannot be sent: ${why}`, { cause: err });
  }
  return new WebhookDeliveryError('LJ_ERR_WEBHOOK_DELIVERY', `${target} failed: ${why}`, { cause: err });
}

/** An error's message and code; for an AggregateError (one per address tried), its first error's. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const inner = err instanceof AggregateError && err.errors[0] instanceof Error ? err.errors[0] : err;
  const code = (err as { code?: unknown }).code ?? (inner as { code?: unknown }).code;
  const message = inner.message || err.message || err.name;
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

/**
 * At most `max` characters of the body. Reading stops there and the rest is
 * not downloaded (the connection is dropped rather than drained). A body cut
 * off by the peer keeps what arrived; an abort (timeout, cancel) is thrown.
 */
async function readExcerpt(body: Dispatcher.ResponseData['body'], max: number, signal: AbortSignal): Promise<string> {
  const decoder = new StringDecoder('utf8');
  let text = '';
  try {
    if (max === 0) {
      await body.dump({ limit: 0 });
      return '';
    }
    for await (const chunk of body) {
      text += decoder.write(chunk as Buffer);
      if (text.length >= max) break; // leaving the loop destroys the stream
    }
    text += decoder.end();
  } catch (err) {
    if (signal.aborted) throw err;
  }
  return cut(text, max);
}

/** The first `max` characters, without leaving half of a surrogate pair at the end. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function keptHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = headers[name];
    if (value !== undefined) kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}
