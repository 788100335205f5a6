/**
 * Messages to jobs (queue.signal): `POST /v1/jobs/:id/signals/:topic`, the
 * request body the message (any JSON; an empty body is `{}`), and
 * `POST /v1/signals/:topic` with `{ key, data }` for the job that holds an
 * idempotency key. Both answer `{ id, woke }`; an `Idempotency-Key` header is
 * the message's key (sent again under it: `duplicate: true`, not sent twice).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queue } from '../../queue.js';
import { NAME_PATTERN, schemas } from '../schemas.js';

/** A topic in a URL: what a job name may hold (ctx.waitFor takes any string; one sent over HTTP is one of these). */
const topic = { type: 'string', pattern: NAME_PATTERN } as const;

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

/** The message's idempotency key: the `Idempotency-Key` header, when given. */
function messageKey(request: FastifyRequest): { key: string } | undefined {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' && key.length > 0 ? { key } : undefined;
}

export function signalRoutes(app: FastifyInstance, queue: Queue): void {
  app.post<{ Params: { id: number; topic: string }; Body: unknown }>('/v1/jobs/:id/signals/:topic', { schema: signalSchemas.byId }, async (request) =>
    queue.signal(request.params.id, request.params.topic, request.body ?? null, messageKey(request)),
  );
  app.post<{ Params: { topic: string }; Body: { key: string; data?: unknown } }>('/v1/signals/:topic', { schema: signalSchemas.byKey }, async (request) =>
    queue.signal({ key: request.body.key }, request.params.topic, request.body.data ?? null, messageKey(request)),
  );
}
