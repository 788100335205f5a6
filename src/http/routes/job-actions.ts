/**
 * `/v1/jobs…` actions beside retry and cancel: delete (one, a selection, a
 * state's old jobs), run again, promote, and send a job any event its
 * machine accepts (a custom machine's `job.approve`, say).
 */
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../../errors.js';
import { parseDuration } from '../../lib/duration.js';
import { isoDate } from '../../lib/iso-date.js';
import type { Queue } from '../../queue.js';
import { MAX_CANCEL, schemas } from '../schemas.js';
import { enqueueOptions } from './jobs.js';

const idParams = schemas.jobById.params;
const ids = { type: 'array', minItems: 1, maxItems: MAX_CANCEL, uniqueItems: true, items: { type: 'integer', minimum: 1 } } as const;

const actionSchemas = {
  selection: { body: { type: 'object', additionalProperties: false, required: ['ids'], properties: { ids } } },
  clean: {
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['state', 'olderThan'],
      properties: {
        state: { type: 'string', minLength: 1, maxLength: 200 },
        name: schemas.list.querystring.properties.name,
        /** An ISO 8601 date, an age ('7d', '12h'), or an age in ms. */
        olderThan: { anyOf: [{ type: 'string', minLength: 1, maxLength: 64 }, { type: 'integer', minimum: 0 }] },
        limit: { type: 'integer', minimum: 1 },
      },
    },
  },
  update: {
    params: idParams,
    body: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        priority: { type: 'integer' },
        /** An ISO 8601 date, or ms since the epoch. */
        runAt: { anyOf: [{ type: 'string', minLength: 1, maxLength: 64 }, { type: 'integer', minimum: 0 }] },
        /** ms from now. */
        delay: { type: 'number', minimum: 0 },
        payload: {},
      },
    },
  },
  event: {
    params: idParams,
    body: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', minLength: 1, maxLength: 200 } },
    },
  },
} as const;

/** `olderThan` as a request gives it: an age ('7d', or ms), else an ISO 8601 date. */
function olderThanOf(value: string | number): Date | string | number {
  if (typeof value === 'number') return value;
  try {
    parseDuration('olderThan', value);
    return value;
  } catch {
    const at = isoDate(value) ?? new Date(Number.NaN);
    if (Number.isNaN(at.getTime())) {
      throw new ValidationError(`olderThan "${value}" is neither an age ('7d', '12h', ms) nor an ISO 8601 date`);
    }
    return at;
  }
}

export function jobActionRoutes(app: FastifyInstance, queue: Queue): void {
  app.delete<{ Params: { id: number } }>('/v1/jobs/:id', { schema: schemas.jobById }, async (request, reply) => {
    await queue.remove(request.params.id);
    return reply.code(204).send();
  });
  app.post<{ Body: { ids: number[] } }>('/v1/jobs/delete', { schema: actionSchemas.selection }, async (request) => queue.remove(request.body.ids));
  app.post<{ Body: { state: string; name?: string; olderThan: string | number; limit?: number } }>('/v1/jobs/clean', { schema: actionSchemas.clean }, async (request) => {
    const { state, name, olderThan, limit } = request.body;
    const removed = await queue.clean({ state, olderThan: olderThanOf(olderThan), ...(name === undefined ? {} : { name }), ...(limit === undefined ? {} : { limit }) });
    return { removed };
  });
  app.post<{ Params: { id: number } }>('/v1/jobs/:id/run-again', { schema: schemas.jobById }, async (request) => ({ job: await queue.runAgain(request.params.id) }));
  app.post<{ Params: { id: number } }>('/v1/jobs/:id/promote', { schema: schemas.jobById }, async (request) => ({ job: await queue.promote(request.params.id) }));
  app.patch<{ Params: { id: number }; Body: { priority?: number; runAt?: string | number; delay?: number; payload?: unknown } }>('/v1/jobs/:id', { schema: actionSchemas.update }, async (request) => {
    const { runAt, ...rest } = request.body;
    // runAt as POST /v1/jobs takes it: ISO 8601 or ms since the epoch.
    const at = runAt === undefined ? undefined : enqueueOptions({ name: 'x', runAt }).runAt;
    return { job: await queue.update(request.params.id, { ...rest, ...(at === undefined ? {} : { runAt: at }) }) };
  });
  app.post<{ Params: { id: number }; Body: { type: string } & Record<string, unknown> }>('/v1/jobs/:id/events', { schema: actionSchemas.event }, async (request) => ({
    job: await queue.send(request.params.id, request.body),
  }));
}
