/**
 * `POST /v1/hooks/:name`: webhook ingestion as providers send it. The raw
 * JSON body is kept as it came (the signature is over those bytes), the job
 * is committed, and only then the provider gets its 2xx.
 *
 * The job is named after the hook and its payload is `{ body, headers }`
 * (the parsed body; the content type and the hook's listed headers). A hook
 * with `deliverTo` instead enqueues the built-in `webhook` delivery job,
 * which forwards the body to that URL with retries.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queue } from '../../queue.js';
import { HttpError } from '../errors.js';
import { signatureMatches } from '../auth.js';
import { schemas } from '../schemas.js';
import { JsonText } from '../../lib/json-text.js';
import { changedNumber, numberNotKept } from '../../lib/json-numbers.js';
import { secretKey, verify } from '../../webhook/standard-webhooks.js';
import { checkHookSignal, signalFromHook, type HookSignal } from './hook-signals.js';

/** A `whsec_…` secret's key, or a TypeError naming the setting. */
function secretKeyOf(what: string, secret: string): Buffer {
  try {
    return secretKey(secret);
  } catch (err) {
    throw new TypeError(`${what}: ${(err as Error).message}`);
  }
}

export interface HookOptions {
  /**
   * Verify the hook's signature under this secret: with `scheme: 'hmac'` (the
   * default) an HMAC-SHA256 of the raw body, hex in `signatureHeader`
   * (optionally `sha256=`-prefixed); with `scheme: 'standard'` the Standard
   * Webhooks headers, the secret a `whsec_…` key.
   */
  secret?: string;
  /** How the signature is sent. Default `'hmac'`. */
  scheme?: 'hmac' | 'standard';
  /** `scheme: 'standard'`: how far `webhook-timestamp` may be from this server's clock, seconds. Default 300. */
  tolerance?: number;
  /** The header carrying the signature. Default `x-signature`. */
  signatureHeader?: string;
  /** A header holding the provider's delivery id: the idempotency key (before `Idempotency-Key`). Not used with `scheme: 'standard'`, whose signed `webhook-id` is the key. */
  keyHeader?: string;
  /** Request headers kept in the payload besides `content-type` (lower case). */
  headers?: string[];
  /** Forward each hook to this URL with the `webhook` delivery job (named by `job`, default `webhook`). */
  deliverTo?: string;
  /** Sign what is forwarded to `deliverTo` the Standard Webhooks way, under this `whsec_…` secret (`litejobs serve`). */
  deliverSecret?: string;
  /** The job name to enqueue. Default: the hook's name, or `webhook` with `deliverTo`. */
  job?: string;
  /** The body is a message for the job whose key it holds, instead of (or, `enqueue: true`, besides) a job of its own (hook-signals.ts). */
  signal?: HookSignal;
}

const HOOK_KEYS = ['secret', 'scheme', 'tolerance', 'signatureHeader', 'keyHeader', 'headers', 'deliverTo', 'deliverSecret', 'job', 'signal'];

/** Checks the hooks option at registration: a typo must not silently turn signature checks off. */
export function checkHooks(hooks: Record<string, HookOptions>): void {
  for (const [name, hook] of Object.entries(hooks)) {
    for (const key of Object.keys(hook)) {
      if (!HOOK_KEYS.includes(key)) throw new TypeError(`hooks.${name}: unknown option "${key}" (allowed: ${HOOK_KEYS.join(', ')})`);
    }
    if (hook.secret !== undefined && (typeof hook.secret !== 'string' || hook.secret.length === 0)) throw new TypeError(`hooks.${name}.secret must be a non-empty string`);
    if (hook.deliverTo !== undefined && !/^https?:\/\//.test(hook.deliverTo)) throw new TypeError(`hooks.${name}.deliverTo must be an http(s) URL`);
    if (hook.scheme !== undefined && hook.scheme !== 'hmac' && hook.scheme !== 'standard') throw new TypeError(`hooks.${name}.scheme must be "hmac" or "standard"`);
    if (hook.scheme === 'standard') {
      if (hook.secret === undefined) throw new TypeError(`hooks.${name}: scheme "standard" needs a secret (whsec_…)`);
      secretKeyOf(`hooks.${name}.secret`, hook.secret);
    }
    if (hook.tolerance !== undefined && (!Number.isFinite(hook.tolerance) || hook.tolerance <= 0)) throw new TypeError(`hooks.${name}.tolerance must be a number of seconds > 0`);
    if (hook.signal !== undefined) {
      checkHookSignal(`hooks.${name}.signal`, hook.signal);
      if (hook.deliverTo !== undefined) throw new TypeError(`hooks.${name}: signal sends the body to a job, deliverTo forwards it: give one of them`);
    }
    if (hook.deliverSecret !== undefined) {
      if (hook.deliverTo === undefined) throw new TypeError(`hooks.${name}.deliverSecret signs what deliverTo forwards: give deliverTo too`);
      secretKeyOf(`hooks.${name}.deliverSecret`, hook.deliverSecret);
    }
  }
}

type RawRequest = FastifyRequest<{ Params: { name: string } }> & { rawBody?: Buffer; notJson?: boolean };

const EMPTY = Buffer.alloc(0);

/** Decodes UTF-8 strictly: a body that is not UTF-8 is not JSON, and must not be stored changed. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Which hook names exist. `listed`: the hooks configured (a Map: a name such
 * as `constructor` must not find an object's inherited members). Unless only
 * those are accepted, a name that is not listed must be a job the queue
 * defines or declares (`jobs`, the built-in `webhook` delivery job aside):
 * an unauthenticated caller cannot make up job names, nor jobs that nothing
 * runs.
 */
export interface HookNames {
  listed: ReadonlyMap<string, HookOptions>;
  onlyListed: boolean;
  jobs: ReadonlySet<string>;
}

/** The jobs the listed hooks enqueue: reached through their hook only (its signature, its keys, its delivery). */
function hookedJobs(names: HookNames): ReadonlySet<string> {
  let jobs = hooked.get(names);
  if (!jobs) {
    jobs = new Set([...names.listed].map(([name, hook]) => hook.job ?? name));
    hooked.set(names, jobs);
  }
  return jobs;
}
const hooked = new WeakMap<HookNames, ReadonlySet<string>>();

/**
 * The hook's settings, `{}` for an accepted unlisted name, or undefined: no
 * such hook (404). An unlisted name that is the job of a listed hook is not
 * one: posted under the job's own name, a delivery would skip the hook's
 * signature check.
 */
export function hookNamed(names: HookNames, name: string): HookOptions | undefined {
  const hook = names.listed.get(name);
  if (hook) return hook;
  return !names.onlyListed && name !== 'webhook' && names.jobs.has(name) && !hookedJobs(names).has(name) ? {} : undefined;
}

/**
 * The idempotency key of a hook's delivery: namespaced by hook, with the
 * hook's name percent-encoded so that it holds no `:`. `hook:a:b` + `c` and
 * `hook:a` + `b:c` would otherwise meet, and one hook could squat another's
 * deliveries. The jobs API refuses keys with this prefix.
 */
export function hookKey(name: string, delivery: string): string {
  return `hook:${encodeURIComponent(name)}:${delivery}`;
}

/** A header's value, or undefined when absent or empty (an empty id must not turn deduplication off). */
function headerValue(request: FastifyRequest, header: string): string | undefined {
  const value = request.headers[header.toLowerCase()];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The delivery's id, the idempotency key within the hook. A Standard Webhooks
 * message: its `webhook-id`, which the signature covers, and nothing a sender
 * may set beside it (a captured message replayed under another header is the
 * same message). Otherwise the hook's `keyHeader`, else `Idempotency-Key`.
 */
function deliveryId(request: FastifyRequest, hook: HookOptions, standardId: string | undefined): string | undefined {
  if (standardId !== undefined) return standardId;
  return (hook.keyHeader === undefined ? undefined : headerValue(request, hook.keyHeader)) ?? headerValue(request, 'idempotency-key');
}

/**
 * The body as text, once its signature held: UTF-8 (JSON is; a body that is
 * not is refused, never decoded loosely) and JSON. A hook whose body is
 * stored as the job's payload also refuses a number JavaScript would change
 * (1e999, 12345678901234567891), as `POST /v1/jobs` does: the job would
 * read back, and its handler get, another value. A body forwarded to
 * `deliverTo` is kept as text and sent on byte for byte, numbers and all.
 */
function signedBodyText(raw: Buffer, forwarded: boolean): string {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new HttpError(400, 'LJ_ERR_PAYLOAD_NOT_JSON', 'the hook body is not UTF-8: JSON is UTF-8');
  }
  if (!forwarded) {
    const changed = changedNumber(text);
    if (changed !== null) throw new HttpError(400, 'LJ_ERR_VALIDATION', `${numberNotKept(changed)}: send it as a string`);
  }
  try {
    JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, 'LJ_ERR_PAYLOAD_NOT_JSON', `request body is not valid JSON: ${(err as Error).message}`);
  }
  return text;
}

export function hookRoutes(app: FastifyInstance, queue: Queue, names: HookNames, bodyLimit: number): void {
  // JSON bodies are read as bytes and left unparsed: the signature is over the bytes as
  // they came, and nothing of a body is decoded or parsed before its signature held
  // (a forged megabyte costs a hash, not a parse). The stored body is those bytes.
  const keepRaw = (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    (request as RawRequest).rawBody = body as Buffer;
    done(null, null);
  };
  app.removeContentTypeParser('application/json'); // the parent's, which does not keep the bytes
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, keepRaw);
  app.addContentTypeParser(/^application\/[\w.+-]*\+json$/, { parseAs: 'buffer', bodyLimit }, keepRaw);
  // Any other type is kept as bytes too, and refused only once its signature is checked: a forged body is a 401 whatever its type.
  app.removeContentTypeParser(['text/plain']);
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (request, body, done) => {
    (request as RawRequest).notJson = true;
    keepRaw(request, body, done);
  });

  app.post<{ Params: { name: string } }>('/v1/hooks/:name', { schema: schemas.hook, bodyLimit }, async (request, reply) => {
    const { name } = request.params;
    const hook = hookNamed(names, name);
    if (!hook) throw new HttpError(404, 'LJ_ERR_NOT_FOUND', `no hook named "${name}"`);
    const { rawBody: raw = EMPTY, notJson } = request as RawRequest;
    const unsupported = () => new HttpError(415, 'LJ_ERR_UNSUPPORTED_MEDIA_TYPE', 'send the hook body as application/json');
    if (hook.secret === undefined && (notJson || (request as RawRequest).rawBody === undefined)) throw unsupported();
    let standardId: string | undefined;
    if (hook.secret !== undefined && hook.scheme === 'standard') {
      const verdict = verify(secretKey(hook.secret), request.headers, raw, Date.now(), (hook.tolerance ?? 300) * 1000);
      if (!verdict.ok) throw new HttpError(401, 'LJ_ERR_BAD_SIGNATURE', `Standard Webhooks signature refused: ${verdict.why}`);
      standardId = verdict.id;
    } else if (hook.secret !== undefined) {
      const header = request.headers[hook.signatureHeader?.toLowerCase() ?? 'x-signature'];
      if (!signatureMatches(hook.secret, raw, typeof header === 'string' ? header : undefined)) {
        throw new HttpError(401, 'LJ_ERR_BAD_SIGNATURE', `signature in ${hook.signatureHeader ?? 'x-signature'} does not match the body`);
      }
    }
    if (notJson || (request as RawRequest).rawBody === undefined) throw unsupported();
    const bodyText = signedBodyText(raw, hook.deliverTo !== undefined);
    const headers: Record<string, string> = { 'content-type': String(request.headers['content-type']) };
    for (const h of hook.headers ?? []) {
      const value = request.headers[h.toLowerCase()];
      if (typeof value === 'string') headers[h.toLowerCase()] = value;
    }
    // Namespaced by hook: two providers may number their deliveries alike.
    const delivery = deliveryId(request, hook, standardId);
    const key = delivery === undefined ? undefined : hookKey(name, delivery);
    // A message for the job that waits for it; its job as well only when asked.
    const signalled = hook.signal === undefined ? undefined : await signalFromHook(queue, hook.signal, JSON.parse(bodyText) as unknown, key);
    if (signalled !== undefined && hook.signal?.enqueue !== true) return reply.code(200).send(signalled);
    const job = hook.job ?? (hook.deliverTo ? 'webhook' : name);
    // The body as it came: forwarded as is, or stored as is.
    const payload = hook.deliverTo
      ? { url: hook.deliverTo, method: 'POST', headers, body: bodyText }
      : new JsonText(`{"body":${bodyText},"headers":${JSON.stringify(headers)}}`);
    const r = await queue.enqueue(job, payload, key === undefined ? undefined : { key });
    return reply.code(r.created ? 201 : 200).send(signalled === undefined ? r : { ...r, signal: signalled });
  });
}
