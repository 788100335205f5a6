/**
 * The error a webhook attempt fails with. It carries the receiver's answer
 * (status, a few headers, a body excerpt), which the queue keeps on the
 * job's `lastError` and history. Its `code` says what happens next:
 *
 * - `LJ_ERR_WEBHOOK_DELIVERY`: a 408, 429 or 5xx answer, or no answer at all
 *   (connection refused or reset, DNS): retried by the retry policy;
 * - `LJ_ERR_RETRY_LATER`: a 429 or 503 with `Retry-After`: run again after
 *   `delay` ms without spending an attempt (as `RetryLaterError` does);
 * - `LJ_ERR_UNRECOVERABLE`: any other answer (3xx, other 4xx), or a request
 *   the HTTP client refuses: straight to `dead` (as `UnrecoverableError`).
 */
import { LitejobsError } from '../errors.js';

export type WebhookDeliveryCode = 'LJ_ERR_WEBHOOK_DELIVERY' | 'LJ_ERR_RETRY_LATER' | 'LJ_ERR_UNRECOVERABLE';

/** The parts of a response a webhook job keeps (on its result, or on the error of a failed attempt). */
export interface WebhookResponseInfo {
  status: number;
  /** content-type, content-length, location, request-id and x-request-id, when present. */
  headers: Record<string, string>;
  /** At most `maxBodyExcerpt` characters of the body. */
  body: string;
}

export class WebhookDeliveryError extends LitejobsError {
  /** The receiver's status; absent when it did not answer. */
  readonly status: number | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly body: string | undefined;
  /** With `LJ_ERR_RETRY_LATER`: ms to wait before the next run. */
  readonly delay: number | undefined;

  constructor(
    code: WebhookDeliveryCode,
    message: string,
    options: { response?: WebhookResponseInfo; delay?: number; cause?: unknown } = {},
  ) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.response?.status;
    this.headers = options.response?.headers;
    this.body = options.response?.body;
    this.delay = options.delay;
  }
}
