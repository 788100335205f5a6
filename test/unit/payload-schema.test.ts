/**
 * engine/core/payload-schema.ts on its own: both validators give the schema's
 * output or a PayloadValidationError with normalised issues, whatever the
 * vendor; the synchronous one refuses a schema that answers with a promise.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PayloadValidationError, ValidationError } from '../../src/errors.js';
import { checkPayloadSchema, toPayloadIssues, validateItems, validatePayload, validatePayloadSync } from '../../src/engine/core/payload-schema.js';

const zodSchema = z.object({ items: z.array(z.object({ sku: z.string() })), note: z.string().default('none') });
const valibotSchema = v.object({ items: v.array(v.object({ sku: v.string() })), note: v.optional(v.string(), 'none') });
const asyncSchema = z.object({ sku: z.string().refine(async (sku) => sku !== 'gone', 'no such product') });

/** A hand-made Standard Schema: the spec is all a validator needs. */
function handMade(validate: (value: unknown) => unknown) {
  return { '~standard': { version: 1 as const, vendor: 'hand-made', validate } } as never;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe.each([
  ['zod', zodSchema],
  ['valibot', valibotSchema],
])('%s', (_vendor, schema) => {
  it('gives the output, defaults applied, sync and async', async () => {
    const payload = { items: [{ sku: 'a' }] };
    expect(validatePayloadSync(schema, payload, { job: 'pack' })).toEqual({ items: [{ sku: 'a' }], note: 'none' });
    expect(await validatePayload(schema, payload, { job: 'pack' })).toEqual({ items: [{ sku: 'a' }], note: 'none' });
  });

  it('refuses with the issues, their paths as plain keys and indexes', async () => {
    const bad = { items: [{ sku: 'a' }, { sku: 2 }] };
    const err = thrown(() => validatePayloadSync(schema, bad, { job: 'pack', index: 3 })) as PayloadValidationError;
    expect(err).toBeInstanceOf(PayloadValidationError);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ code: 'LJ_ERR_INVALID_PAYLOAD', job: 'pack', index: 3, issues: [{ message: expect.any(String), path: ['items', 1, 'sku'] }] });
    expect(err.message).toMatch(/^enqueueMany item 3: job "pack": the payload does not match the schema: items\.1\.sku: /);
    await expect(validatePayload(schema, bad, { job: 'pack' })).rejects.toMatchObject({ code: 'LJ_ERR_INVALID_PAYLOAD', index: undefined, issues: err.issues });
  });
});

describe('validatePayload', () => {
  it('waits for a schema that answers with a promise', async () => {
    await expect(validatePayload(asyncSchema, { sku: 'in-stock' }, { job: 'ship' })).resolves.toEqual({ sku: 'in-stock' });
    await expect(validatePayload(asyncSchema, { sku: 'gone' }, { job: 'ship' })).rejects.toMatchObject({ issues: [{ message: 'no such product', path: ['sku'] }] });
  });

  it('wraps a validator that throws or rejects, keeping the cause', async () => {
    const boom = new Error('boom');
    for (const schema of [handMade(() => { throw boom; }), handMade(() => Promise.reject(boom))]) {
      const err = await validatePayload(schema, {}, { job: 'x' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PayloadValidationError);
      expect(err).toMatchObject({ cause: boom, issues: [{ message: "the schema's validator threw: boom" }] });
    }
  });

  it('names at most three issues in the message and keeps them all', async () => {
    const issues = ['a', 'b', 'c', 'd', 'e'].map((key) => ({ message: `${key} is wrong`, path: [{ key }] }));
    const err = (await validatePayload(handMade(() => ({ issues })), {}, { job: 'x' }).catch((e: unknown) => e)) as PayloadValidationError;
    expect(err.issues).toHaveLength(5);
    expect(err.message).toBe('job "x": the payload does not match the schema: a: a is wrong; b: b is wrong; c: c is wrong; and 2 more');
  });
});

describe('validatePayloadSync', () => {
  it('refuses a schema that validates asynchronously with a plain ValidationError', () => {
    const err = thrown(() => validatePayloadSync(asyncSchema, { sku: 'gone' }, { job: 'ship' }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).not.toBeInstanceOf(PayloadValidationError);
    expect(err).toMatchObject({ code: 'LJ_ERR_VALIDATION', message: expect.stringContaining('asynchronously') });
  });

  it('wraps a validator that throws', () => {
    const boom = new Error('boom');
    expect(thrown(() => validatePayloadSync(handMade(() => { throw boom; }), {}, { job: 'x' }))).toMatchObject({ code: 'LJ_ERR_INVALID_PAYLOAD', cause: boom });
  });
});

describe('validateItems', () => {
  it('replaces the payloads of items with a schema, keeps the others, and refuses by the first bad position', async () => {
    const schemas = new Map([['pack', zodSchema as never]]);
    expect(await validateItems(schemas, [{ name: 'pack', payload: { items: [] } }, { name: 'other', payload: 7 }])).toEqual([{ items: [], note: 'none' }, 7]);
    // The async refusal of item 2 settles first; the error is still item 1's.
    const mixed = new Map([['pack', zodSchema as never], ['ship', asyncSchema as never]]);
    const err = await validateItems(mixed, [{ name: 'ship', payload: { sku: 'a' } }, { name: 'ship', payload: { sku: 'gone' } }, { name: 'pack', payload: {} }]).catch((e: unknown) => e);
    expect(err).toMatchObject({ index: 1, job: 'ship' });
  });
});

describe('toPayloadIssues and checkPayloadSchema', () => {
  it('turns path segments into keys, symbols into their description, and drops an empty path', () => {
    expect(toPayloadIssues([{ message: 'm', path: [{ key: 'a' }, 0, Symbol('s')] }, { message: 'n', path: [] }, { message: 'o' }])).toEqual([
      { message: 'm', path: ['a', 0, 's'] },
      { message: 'n' },
      { message: 'o' },
    ]);
  });

  it('accepts any object or function with a version-1 "~standard", and refuses the rest', () => {
    const fn = Object.assign(() => 1, { '~standard': { version: 1, vendor: 'arktype-like', validate: () => ({ value: 1 }) } });
    expect(checkPayloadSchema('job "x"', fn)).toBe(fn);
    expect(checkPayloadSchema('job "x"', zodSchema)).toBe(zodSchema);
    for (const bad of [null, 42, {}, { '~standard': { version: 2, validate: () => ({}) } }, { '~standard': { version: 1 } }]) {
      expect(() => checkPayloadSchema('job "x"', bad)).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    }
  });
});
