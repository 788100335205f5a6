/**
 * JSON schemas of the HTTP API. Fastify validates every request against
 * these before a route runs (with `removeAdditional: false`, so an unknown
 * field is a 400, never silently dropped); the engine then checks what a
 * schema cannot (payload size, dates in range).
 */

/** Job and hook names: what a URL, a log line and a metric label carry safely. */
export const NAME_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';
const name = { type: 'string', pattern: NAME_PATTERN } as const;
/** Concurrency groups: any text an enqueue accepts (percent-encoded in a URL); engine/core/limits.ts refuses a NUL. */
const group = { type: 'string', minLength: 1, maxLength: 200 } as const;

const jobInput = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name,
    payload: {},
    key: { type: 'string', minLength: 1, maxLength: 512 },
    /** ms from now. */
    delay: { type: 'number', minimum: 0 },
    /** An ISO 8601 date, or ms since the epoch. */
    runAt: { anyOf: [{ type: 'string', minLength: 1, maxLength: 64 }, { type: 'integer', minimum: 0 }] },
    priority: { type: 'integer' },
    /** Last in, first out (EnqueueOptions lifo). */
    lifo: { type: 'boolean' },
    /** Unique while the job is in some states (engine/core/unique.ts); the engine checks the values. */
    unique: {
      type: 'object',
      additionalProperties: false,
      required: ['key'],
      properties: { key: { type: 'string' }, while: { type: 'string' } },
    },
    debounce: { type: 'object', additionalProperties: false, required: ['key', 'ms'], properties: { key: { type: 'string' }, ms: { type: 'number' } } },
    throttle: { type: 'object', additionalProperties: false, required: ['key', 'ms'], properties: { key: { type: 'string' }, ms: { type: 'number' } } },
    group,
  },
} as const;

/** A job of a flow: a job input without keys (a key could hand back another flow's job), its policy, its children. */
const flowItemProperties = {
  name,
  payload: {},
  delay: jobInput.properties.delay,
  runAt: jobInput.properties.runAt,
  priority: jobInput.properties.priority,
  group,
} as const;
const flowItem = { type: 'object', additionalProperties: false, required: ['name'], properties: flowItemProperties } as const;
const flowJob = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    ...flowItemProperties,
    onChildFailure: { type: 'string', enum: ['fail', 'continue'] },
    children: { type: 'array', items: { $ref: '#/definitions/flowJob' } },
  },
} as const;

export const MAX_BATCH = 1000;
/** Jobs one `POST /v1/jobs/cancel` may name. */
export const MAX_CANCEL = 1000;

const idParams = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1 } },
} as const;

const nameParams = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name },
} as const;

const enqueued = {
  type: 'object',
  properties: { id: { type: 'integer' }, state: { type: 'string' }, created: { type: 'boolean' } },
} as const;

/** What a message to a job answers (queue.signal). */
const signalled = { type: 'object', properties: { id: { type: 'integer' }, woke: { type: 'boolean' }, duplicate: { type: 'boolean' } } } as const;

/** A hook's answer: the job it enqueued, the message it sent (hook-signals.ts), or both. */
const hookAnswer = { type: 'object', properties: { ...enqueued.properties, ...signalled.properties, signal: signalled } } as const;

/** A schedule: a cron expression or an interval (`every`: ms, or '5m'); the engine checks the values (core/schedules.ts). */
const scheduleInput = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name,
    id: { type: 'string', minLength: 1, maxLength: 200 },
    cron: { type: 'string', minLength: 1, maxLength: 200 },
    every: { anyOf: [{ type: 'string', minLength: 1, maxLength: 32 }, { type: 'integer', minimum: 1 }] },
    tz: { type: 'string', minLength: 1, maxLength: 64 },
    payload: {},
    missed: { type: 'string', enum: ['skip', 'one', 'all'] },
    limit: { type: 'integer', minimum: 1 },
    startDate: { anyOf: [{ type: 'string', minLength: 1, maxLength: 64 }, { type: 'integer', minimum: 0 }] },
    endDate: { anyOf: [{ type: 'string', minLength: 1, maxLength: 64 }, { type: 'integer', minimum: 0 }] },
    immediately: { type: 'boolean' },
  },
} as const;

export const schemas = {
  enqueue: { body: jobInput, response: { 200: enqueued, 201: enqueued } },
  batch: {
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['jobs'],
      properties: { jobs: { type: 'array', minItems: 1, maxItems: MAX_BATCH, items: jobInput } },
    },
  },
  flow: { body: { $ref: '#/definitions/flowJob', definitions: { flowJob } } },
  flowBatch: {
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['jobs', 'onComplete'],
      properties: { jobs: { type: 'array', minItems: 1, maxItems: MAX_BATCH, items: flowItem }, onComplete: flowItem },
    },
  },
  hook: { params: nameParams, response: { 200: hookAnswer, 201: hookAnswer } },
  jobById: { params: idParams },
  list: {
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        state: { type: 'string', minLength: 1, maxLength: 200 },
        name,
        limit: { type: 'integer', minimum: 1, maximum: 1000 },
        after: { type: 'integer', minimum: 0 },
      },
    },
  },
  retryDead: {
    body: {
      type: 'object',
      additionalProperties: false,
      properties: { name, where: { type: 'string', maxLength: 1000 }, ids: { type: 'array', minItems: 1, maxItems: MAX_CANCEL, uniqueItems: true, items: { type: 'integer', minimum: 1 } } },
    },
  },
  cancelMany: {
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['ids'],
      properties: { ids: { type: 'array', minItems: 1, maxItems: MAX_CANCEL, uniqueItems: true, items: { type: 'integer', minimum: 1 } } },
    },
  },
  byName: { params: nameParams },
  /** A schedule's id: any text `queue.schedule` takes (percent-encoded in the URL), not only a job name's characters. */
  byScheduleId: { params: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 200 } } } },
  schedule: { body: scheduleInput },
  groupConcurrency: {
    params: { type: 'object', additionalProperties: false, required: ['group'], properties: { group } },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['concurrency'],
      // null gives the group back to the definitions' groupConcurrency.
      properties: { concurrency: { anyOf: [{ type: 'integer', minimum: 1, maximum: 1_000_000 }, { type: 'null' }] } },
    },
  },
  /** queue.setLimits: the engine checks the values as defineJob does (null turns a limit off). */
  nameLimits: {
    params: { type: 'object', additionalProperties: false, required: ['name'], properties: { name } },
    body: {
      type: 'object',
      additionalProperties: false,
      properties: {
        rateLimit: {
          anyOf: [
            { type: 'object', additionalProperties: false, required: ['max', 'per'], properties: { max: { type: 'integer' }, per: { anyOf: [{ type: 'integer' }, { type: 'string', maxLength: 64 }] }, perGroup: { type: 'boolean' } } },
            { type: 'null' },
          ],
        },
        globalConcurrency: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
        groupConcurrency: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
      },
    },
  },
  nameLimitsReset: { params: { type: 'object', additionalProperties: false, required: ['name'], properties: { name } } },
} as const;
