/** `/v1/jobs…`: enqueue (one or a batch), read (with history, steps or logs), list, retry and cancel jobs (one, a selection, or the dead a filter matches). */
import type { LargeBodyGate } from '../large-body-gate.js';
import type { FastifyInstance } from 'fastify';
import type { EnqueueOptions } from '../../engine/core/options.js';
import type { UniqueWhile } from '../../engine/core/unique.js';
import type { Queue } from '../../queue.js';
import { isoDate } from '../../lib/iso-date.js';
import { ValidationError } from '../../errors.js';
import { cancelJobs, retryJobs } from '../../live/bulk-actions.js';
import { schemas } from '../schemas.js';
import { MAX_LOGS_PAGE } from '../../engine/actions/job-logs.js';

const logsSchema = {
  params: schemas.jobById.params,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: { after: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 1, maximum: MAX_LOGS_PAGE } },
  },
} as const;

export interface JobInput {
  name: string;
  payload?: unknown;
  key?: string;
  delay?: number;
  runAt?: string | number;
  priority?: number;
  lifo?: boolean;
  unique?: { key: string; while?: UniqueWhile };
  debounce?: { key: string; ms: number };
  throttle?: { key: string; ms: number };
  group?: string;
}

/** Key prefixes litejobs keeps for itself: a hook's deliveries (hooks.ts hookKey) and a schedule's slots (engine/core/cron.ts). */
const RESERVED_KEY = /^(?:hook|cron):/;

/** The enqueue options a request carries (only those it set). */
export function enqueueOptions(input: JobInput): EnqueueOptions {
  const o: EnqueueOptions = {};
  if (input.key !== undefined) {
    if (RESERVED_KEY.test(input.key)) throw new ValidationError(`key "${input.key}": keys starting with hook: or cron: are litejobs' own (hook deliveries, schedule slots)`);
    o.key = input.key;
  }
  if (input.delay !== undefined) o.delay = input.delay;
  if (input.priority !== undefined) o.priority = input.priority;
  if (input.lifo !== undefined) o.lifo = input.lifo;
  if (input.unique !== undefined) o.unique = input.unique;
  if (input.debounce !== undefined) o.debounce = input.debounce;
  if (input.throttle !== undefined) o.throttle = input.throttle;
  if (input.group !== undefined) o.group = input.group;
  if (input.runAt !== undefined) {
    // ISO 8601 (a date, with a time and a zone or without) or ms since the epoch: not whatever Date() makes of "1".
    const at = typeof input.runAt === 'number' ? new Date(input.runAt) : (isoDate(input.runAt) ?? new Date(Number.NaN));
    if (Number.isNaN(at.getTime())) throw new ValidationError(`runAt "${input.runAt}" is not a date (ISO 8601, or ms since the epoch)`);
    o.runAt = at;
  }
  return o;
}

export function jobRoutes(app: FastifyInstance, queue: Queue, o: { batchBodyLimit: number; bodyLimit: number; gate: LargeBodyGate }): void {
  const { batchBodyLimit, bodyLimit } = o;
  app.post<{ Body: JobInput }>('/v1/jobs', { schema: schemas.enqueue, bodyLimit }, async (request, reply) => {
    const body = request.body;
    // Resolves once the job is committed; concurrent requests share that commit.
    const r = await queue.enqueue(body.name, body.payload ?? null, enqueueOptions(body));
    return reply.code(r.created ? 201 : 200).send(r);
  });

  app.post<{ Body: { jobs: JobInput[] } }>('/v1/jobs/batch', { schema: schemas.batch, bodyLimit: batchBodyLimit, preParsing: o.gate.over(bodyLimit) }, async (request, reply) => {
    const items = request.body.jobs.map((job) => ({ name: job.name, payload: job.payload ?? null, options: enqueueOptions(job) }));
    const results = await queue.enqueueMany(items); // one transaction: all or nothing
    return reply.code(results.some((r) => r.created) ? 201 : 200).send({ jobs: results });
  });

  const noBodyIsEmpty = async (request: { body: unknown }) => {
    request.body ??= {}; // before validation: a bare POST means "every name"
  };
  // The dead a filter matches, or the jobs selected (`ids`: each one's outcome, those left listed with why).
  app.post<{ Body: { name?: string; where?: string; ids?: number[] } }>('/v1/jobs/retry', { schema: schemas.retryDead, preValidation: noBodyIsEmpty }, async (request) => {
    const { name, where, ids } = request.body;
    if (ids !== undefined) {
      if (name !== undefined || where !== undefined) throw new ValidationError('retry takes ids, or a filter (name, where), not both');
      return retryJobs(queue, ids);
    }
    return { retried: await queue.retryDead({ ...(name === undefined ? {} : { name }), ...(where === undefined ? {} : { where }) }) };
  });

  app.post<{ Body: { ids: number[] } }>('/v1/jobs/cancel', { schema: schemas.cancelMany }, async (request) => cancelJobs(queue, request.body.ids));

  app.get<{ Params: { id: number } }>('/v1/jobs/:id', { schema: schemas.jobById }, async (request) => {
    const { id } = request.params;
    const [job, history, steps, events] = await Promise.all([queue.getJob(id), queue.history(id), queue.steps(id), queue.acceptedEvents(id)]);
    // `events`: what a caller may send it now (POST /v1/jobs/:id/events), read off its machine.
    return { job, history, steps, events };
  });

  // The job's completed durable steps (ctx.step, ctx.sleep): 404 for an unknown job.
  app.get<{ Params: { id: number } }>('/v1/jobs/:id/steps', { schema: schemas.jobById }, async (request) => ({ steps: await queue.steps(request.params.id) }));

  // The job's ctx.log lines, oldest first: `next` (a line's seq) as `after` reads on. 404 for an unknown job.
  app.get<{ Params: { id: number }; Querystring: { after?: number; limit?: number } }>('/v1/jobs/:id/logs', { schema: logsSchema }, async (request) =>
    queue.logs(request.params.id, request.query),
  );

  app.get<{ Querystring: { state?: string; name?: string; limit?: number; after?: number } }>('/v1/jobs', { schema: schemas.list }, async (request) => {
    const limit = request.query.limit ?? 100;
    const jobs = await queue.listJobs({ ...request.query, limit });
    // Keyset paging: pass `next` as `after` for the following page.
    return { jobs, next: jobs.length === limit ? jobs[jobs.length - 1]!.id : null };
  });

  app.post<{ Params: { id: number } }>('/v1/jobs/:id/retry', { schema: schemas.jobById }, async (request) => ({ job: await queue.retry(request.params.id) }));
  app.post<{ Params: { id: number } }>('/v1/jobs/:id/cancel', { schema: schemas.jobById }, async (request) => ({ job: await queue.cancel(request.params.id) }));
}
