/**
 * Messages to jobs (queue.signal): `POST /v1/jobs/:id/signals/:topic`, the
 * request body the message (any JSON; an empty body is `{}`), and
 * `POST /v1/signals/:topic` with `{ key, data }` for the job that holds an
 * idempotency key. Both answer `{ id, woke }`; an `Idempotency-Key` header is
 * the message's key (sent again under it: `duplicate: true`, not sent twice).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queue } from '../../queue.js';
import { ValidationError } from '../../errors.js';
import { schemas } from '../schemas.js';
import { MAX_TOPIC } from '../../engine/run/durable-steps.js';

/** A topic in a URL, percent-encoded: any text ctx.waitFor takes (the engine refuses a NUL or half a surrogate pair). */
const topic = { type: 'string', minLength: 1, maxLength: MAX_TOPIC } as const;

const signalSchemas = {
  byId: {
    params: { type: 'object', additionalProperties: false, required: ['id', 'topic'], properties: { ...schemas.jobById.params.properties, topic } },
  },
  byKey: {
    params: { type: 'object', additionalProperties: false, required: ['topic'], properties: { topic } },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['key'],
      properties: { key: { type: 'string', minLength: 1, maxLength: 1024 }, data: {} },
    },
  },
} as const;

/** Keys a hook's deliveries take (hooks.ts hookKey): a caller could otherwise take a delivery's key first and have it dropped as a duplicate. */
const RESERVED_KEY = /^(?:hook|cron):/;

/** What an Idempotency-Key may hold. */
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/** The message's idempotency key: the `Idempotency-Key` header, when given. */
function messageKey(request: FastifyRequest): { key: string } | undefined {
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string' || key.length === 0) return undefined;
  if (RESERVED_KEY.test(key)) throw new ValidationError('Idempotency-Key: keys starting with hook: or cron: are litejobs\' own (hook deliveries, schedule slots)');
  // Header bytes reach Node as Latin-1: a key outside printable ASCII would be stored as other characters than the client sent.
  if (!PRINTABLE_ASCII.test(key)) throw new ValidationError('Idempotency-Key: printable ASCII only (a provider\'s delivery id, a UUID)');
  return { key };
}

export function signalRoutes(app: FastifyInstance, queue: Queue): void {
  app.post<{ Params: { id: number; topic: string }; Body: unknown }>('/v1/jobs/:id/signals/:topic', { schema: signalSchemas.byId }, async (request) =>
    queue.signal(request.params.id, request.params.topic, request.body, messageKey(request)),
  );
  app.post<{ Params: { topic: string }; Body: { key: string; data?: unknown } }>('/v1/signals/:topic', { schema: signalSchemas.byKey }, async (request) =>
    queue.signal({ key: request.body.key }, request.params.topic, request.body.data, messageKey(request)),
  );
}
