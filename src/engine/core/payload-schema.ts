/**
 * Payload validation with a job's schema: any Standard Schema v1
 * (https://standardschema.dev — zod ≥ 3.24, valibot ≥ 1, arktype, …). The
 * queue validates at enqueue, before anything is written, and stores the
 * validator's output value, so its transforms and defaults are what the
 * handler receives. The spec's `validate` may answer synchronously or with
 * a promise: `validatePayload` takes both, `validatePayloadSync` only the
 * first (for a synchronous enqueue path).
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { PayloadValidationError, ValidationError, type PayloadIssue } from '../../errors.js';
import { JsonText } from '../../lib/json-text.js';

/** A job's schema: any Standard Schema v1. */
export type PayloadSchema = StandardSchemaV1;

/** Which payload is validated: its job, and its place in `enqueueMany`. */
export interface PayloadTarget {
  job: string;
  index?: number | undefined;
}

/** Checks that `schema` speaks Standard Schema v1 (at `defineJob` / `declareJob`, not at the first enqueue). */
export function checkPayloadSchema(what: string, schema: unknown): PayloadSchema {
  // arktype's schemas are functions carrying the property, the others objects.
  const holder = (typeof schema === 'object' && schema !== null) || typeof schema === 'function' ? (schema as { '~standard'?: unknown }) : undefined;
  const props = holder?.['~standard'] as { version?: unknown; validate?: unknown } | undefined;
  if (typeof props !== 'object' || props === null || props.version !== 1 || typeof props.validate !== 'function') {
    throw new ValidationError(`${what}: schema must be a Standard Schema v1 (zod ≥ 3.24, valibot ≥ 1, arktype…): an object whose "~standard" holds version 1 and validate()`);
  }
  return schema as PayloadSchema;
}

/** The schemas of a queue's jobs (defined and declared), by name; jobs without one are absent. */
export function payloadSchemasOf(jobs: ReadonlyArray<{ name: string; schema?: PayloadSchema | undefined }>): ReadonlyMap<string, PayloadSchema> {
  const schemas = new Map<string, PayloadSchema>();
  for (const job of jobs) {
    if (job.schema !== undefined) schemas.set(job.name, job.schema);
  }
  return schemas;
}

/**
 * The validator's output for `payload` (what the queue stores); a
 * PayloadValidationError with the issues when it refuses it or throws.
 *
 * @example
 * const stored = await validatePayload(z.object({ to: z.string().email() }), { to: 'ada@example.com' }, { job: 'send-email' });
 */
export async function validatePayload<S extends PayloadSchema>(schema: S, payload: unknown, target: PayloadTarget): Promise<StandardSchemaV1.InferOutput<S>> {
  let result: StandardSchemaV1.Result<unknown>;
  try {
    // A payload given as JSON text is validated as the value it holds.
    result = await schema['~standard'].validate(payload instanceof JsonText ? payload.parse() : payload);
  } catch (err) {
    throw validatorThrew(target, err);
  }
  return outcome(result, target) as StandardSchemaV1.InferOutput<S>;
}

/**
 * `validatePayload` for a synchronous caller. A schema whose validate answers
 * with a promise (an async refinement) cannot be used there: that is a
 * ValidationError (`LJ_ERR_VALIDATION`), not a refused payload.
 *
 * @example
 * const stored = validatePayloadSync(v.object({ id: v.number() }), { id: 7 }, { job: 'sync-user' });
 */
export function validatePayloadSync<S extends PayloadSchema>(schema: S, payload: unknown, target: PayloadTarget): StandardSchemaV1.InferOutput<S> {
  let result: StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>;
  try {
    result = schema['~standard'].validate(payload instanceof JsonText ? payload.parse() : payload);
  } catch (err) {
    throw validatorThrew(target, err);
  }
  if (isThenable(result)) {
    // Nobody awaits it: keep a rejection from surfacing as unhandled.
    Promise.resolve(result).catch(() => undefined);
    throw new ValidationError(`job "${target.job}": its schema validates asynchronously (validate returned a promise), which a synchronous enqueue cannot wait for: use enqueue`);
  }
  return outcome(result, target) as StandardSchemaV1.InferOutput<S>;
}

/**
 * The payloads of an `enqueueMany`, each replaced by its schema's output
 * (items whose job has no schema keep theirs). Every item is validated; the
 * error is the first refused item's, by position, so one bad item refuses
 * the whole call.
 */
export async function validateItems(schemas: ReadonlyMap<string, PayloadSchema>, items: ReadonlyArray<{ name?: unknown; payload?: unknown } | undefined>): Promise<unknown[]> {
  if (schemas.size === 0) return items.map((item) => item?.payload);
  const settled = await Promise.allSettled(
    items.map((item, index) => {
      const schema = typeof item?.name === 'string' ? schemas.get(item.name) : undefined;
      return schema === undefined ? item?.payload : validatePayload(schema, item!.payload, { job: item!.name as string, index });
    }),
  );
  const refused = settled.find((r) => r.status === 'rejected');
  if (refused) throw refused.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value);
}

/** The spec's issues as the error carries them: each path segment `{ key }` becomes its key. */
export function toPayloadIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): PayloadIssue[] {
  return issues.map((issue) => {
    const path = (issue.path ?? []).map((segment) => pathKey(typeof segment === 'object' && segment !== null ? segment.key : segment));
    return path.length > 0 ? { message: String(issue.message), path } : { message: String(issue.message) };
  });
}

const pathKey = (key: PropertyKey): string | number => (typeof key === 'symbol' ? (key.description ?? key.toString()) : key);

function outcome(result: StandardSchemaV1.Result<unknown>, target: PayloadTarget): unknown {
  if (typeof result !== 'object' || result === null) {
    throw new PayloadValidationError(target.job, [{ message: 'the schema answered no result' }], { index: target.index });
  }
  if (result.issues) {
    const issues = toPayloadIssues(result.issues);
    // A failure is any truthy issues, even an empty list: keep one issue to show.
    throw new PayloadValidationError(target.job, issues.length > 0 ? issues : [{ message: 'the schema refused the payload' }], { index: target.index });
  }
  return result.value;
}

function validatorThrew(target: PayloadTarget, err: unknown): PayloadValidationError {
  const message = `the schema's validator threw: ${err instanceof Error ? err.message : String(err)}`;
  return new PayloadValidationError(target.job, [{ message }], { index: target.index, message, cause: err });
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
