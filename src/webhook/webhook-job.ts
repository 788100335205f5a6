/**
 * The built-in webhook job: delivers an HTTP request described by the
 * payload, retrying what may succeed later (408, 429, 5xx, no answer) with
 * exponential backoff and jitter, honouring `Retry-After`, and sending what
 * will not (other 4xx, a bad payload) straight to `dead`.
 */
import type { Dispatcher } from 'undici';
import { resolveRetryPolicy, type RetryPolicy } from '../../machines/policy.js';
import { createHash, randomBytes } from 'node:crypto';
import { defineJob, type HandlerContext, type JobDefinition } from '../engine/core/job-definition.js';
import { checkInteger, checkRetryPolicy, checkString, rejectUnknownOptions } from '../lib/validate.js';
import { ValidationError } from '../errors.js';
import { deliver, type WebhookResult } from './deliver.js';
import { prepareWebhookRequest, type WebhookPayload } from './payload.js';
import { checkTarget, checkTargets, isUnder, publicLookup } from './targets.js';
import { secretKey, signatureHeaders } from './standard-webhooks.js';
import { loadUndici } from './undici.js';

export interface WebhookJobOptions<N extends string = 'webhook'> {
  /** The job name to enqueue under. Default `'webhook'`. */
  name?: N;
  /** ms each attempt may take, answer and body excerpt included (the job's `timeout`). Default 10 000. */
  timeout?: number;
  /** Characters of the response body kept on the result or the error. Default 1024. */
  maxBodyExcerpt?: number;
  /** Layered key by key over `DEFAULT_WEBHOOK_RETRY`. */
  retry?: RetryPolicy;
  /**
   * The undici dispatcher to send with (a proxy agent, a mock pool). Default:
   * an Agent of this job's own, with keep-alive, that refuses private
   * addresses unless `allowPrivate`. A dispatcher of your own makes that
   * check yours (the URL's own host is still checked).
   */
  dispatcher?: Dispatcher;
  /**
   * URL prefixes the job may send to (`https://client.example.com/hooks/`):
   * a payload's URL must have the origin of one and a path under it; any
   * other is refused (`UnrecoverableError`, straight to `dead`). Absent: any
   * public URL. `litejobs serve` sets it to its hooks' `deliverTo` URLs and
   * `--deliver-to`.
   */
  allowTargets?: readonly string[];
  /** Send to loopback, private and link-local addresses too. Default false: a payload cannot make the server fetch its own network. */
  allowPrivate?: boolean;
  /**
   * Sign deliveries the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
   * `webhook-signature`): URL prefix → `whsec_…` secret. A delivery under a
   * prefix is signed with its secret (the longest prefix wins); `webhook-id`
   * is a random `msg_…`, the same on every retry (so the receiver can drop
   * repeats) and new when the job runs again. The secrets live in the process, never in a payload or the store.
   */
  signatures?: Readonly<Record<string, string>>;
}

/** Ten attempts, 1 s doubling up to 1 h, each delay drawn between half and all of the curve. */
export const DEFAULT_WEBHOOK_RETRY: Readonly<RetryPolicy> = Object.freeze<RetryPolicy>({
  attempts: 10,
  backoff: Object.freeze({ type: 'exponential', delay: 1000, factor: 2 } as const),
  jitter: 0.5,
  maxDelay: 60 * 60 * 1000,
});

const OPTION_KEYS = ['name', 'timeout', 'maxBodyExcerpt', 'retry', 'dispatcher', 'allowTargets', 'allowPrivate', 'signatures'] as const;

/**
 * Defines the job that delivers webhooks. Enqueue `{ url, method?, headers?, body? }`;
 * the result is `{ status, headers, body, durationMs }`.
 *
 * @example
 * const queue = createQueue({ path: './jobs.db', jobs: [defineWebhookJob()] });
 * await queue.enqueue('webhook', { url: 'https://example.com/hooks/orders', body: { orderId: 42 } });
 * await queue.start();
 */
// Two signatures, so that a job without a name is typed `'webhook'` even inline in
// `createQueue({ jobs: [defineWebhookJob()] })`, where `string` would be inferred from the context.
export function defineWebhookJob(options?: WebhookJobOptions & { name?: undefined }): JobDefinition<WebhookPayload, WebhookResult, 'webhook'>;
export function defineWebhookJob<const N extends string>(options: WebhookJobOptions<N> & { name: N }): JobDefinition<WebhookPayload, WebhookResult, N>;
export function defineWebhookJob(options: WebhookJobOptions<string>): JobDefinition<WebhookPayload, WebhookResult, string>;
export function defineWebhookJob<N extends string>(options: WebhookJobOptions<N> = {}): JobDefinition<WebhookPayload, WebhookResult, N> {
  rejectUnknownOptions('defineWebhookJob', options, OPTION_KEYS);
  const name = (options.name ?? 'webhook') as N;
  checkString('defineWebhookJob name', name, 200);
  const timeout = checkInteger('defineWebhookJob timeout', options.timeout ?? 10_000, 1);
  const maxBodyExcerpt = checkInteger('defineWebhookJob maxBodyExcerpt', options.maxBodyExcerpt ?? 1024, 0, 1_000_000);
  if (options.retry !== undefined) checkRetryPolicy('defineWebhookJob retry', options.retry, false);
  if (options.dispatcher !== undefined && typeof (options.dispatcher as { dispatch?: unknown }).dispatch !== 'function') {
    throw new ValidationError('defineWebhookJob dispatcher must be an undici Dispatcher (Agent, Pool, ProxyAgent…)');
  }
  const allowed = options.allowTargets === undefined ? undefined : checkTargets('defineWebhookJob allowTargets', options.allowTargets);
  if (options.allowPrivate !== undefined && typeof options.allowPrivate !== 'boolean') throw new ValidationError('defineWebhookJob allowPrivate must be a boolean');
  const allowPrivate = options.allowPrivate === true;
  const signers = Object.entries(options.signatures ?? {}).map(([prefix, secret]) => {
    const [url] = checkTargets('defineWebhookJob signatures', [prefix]);
    return { url: url!, key: secretKey(secret) };
  });
  // The longest prefix first: the most specific target's secret wins.
  signers.sort((a, b) => b.url.href.length - a.url.href.length);
  const retry: RetryPolicy = { ...DEFAULT_WEBHOOK_RETRY, ...withoutUndefined(options.retry) };
  const maxDelay = resolveRetryPolicy(retry).maxDelay;
  // Made on first use, so a process that only enqueues opens nothing. Its idle
  // sockets are unref'd by undici: they do not keep the process alive.
  let agent: Dispatcher | undefined = options.dispatcher;

  return defineJob<WebhookPayload, WebhookResult, N>({
    name,
    retry,
    timeout,
    handler: async (payload, ctx) => {
      const req = prepareWebhookRequest(payload);
      checkTarget(req.url, allowed, allowPrivate);
      const signer = signers.find((s) => isUnder(req.url, s.url));
      if (signer) {
        // The signature headers are this job's own: a payload's, in any case, would be sent beside them.
        for (const h of Object.keys(req.headers)) if (/^webhook-(id|timestamp|signature)$/i.test(h)) delete req.headers[h];
        Object.assign(req.headers, signatureHeaders(signer.key, await messageId(ctx, req.url.href, req.body ?? ''), Math.floor(Date.now() / 1000), req.body ?? ''));
      }
      // Each connection resolves the name afresh and refuses private answers (a name may point elsewhere by then).
      if (agent === undefined) {
        const { Agent } = await loadUndici();
        agent ??= new Agent(allowPrivate ? {} : { connect: { lookup: publicLookup } });
      }
      return deliver(req, { dispatcher: agent, maxBodyExcerpt, maxDelay, signal: ctx.signal, traced: ctx.trace !== undefined });
    },
  });
}

/**
 * The delivery's Standard Webhooks `webhook-id`: random (no two servers, nor
 * a database restored from a backup, hand out the same), and kept as a
 * durable step named after what is sent (the target and the body), so every
 * retry of the delivery sends the same id and the receiver can drop repeats.
 * Another message is another id: a payload changed while the job waited
 * (`queue.update`) is a step of another name, and running the job again
 * (`job.rerun`) starts a fresh run without its steps.
 */
function messageId(ctx: HandlerContext, url: string, body: string): Promise<string> {
  const sent = createHash('sha256').update(JSON.stringify([url, body])).digest('base64url').slice(0, 22);
  return ctx.step(`webhook-id:${sent}`, () => `msg_${randomBytes(16).toString('base64url')}`);
}

function withoutUndefined(policy: RetryPolicy | undefined): RetryPolicy {
  return Object.fromEntries(Object.entries(policy ?? {}).filter(([, value]) => value !== undefined)) as RetryPolicy;
}
