import { describe, expect, it } from 'vitest';
import { createQueue, defineJob, LitejobsError, ValidationError } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { silentLogger } from '../helpers/silent-logger.js';

const fx = useQueues();

async function rejected(p: Promise<unknown>): Promise<LitejobsError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LitejobsError);
  return err as LitejobsError;
}

describe('bad input is refused with a typed error and nothing is written', () => {
  it('refuses unknown enqueue options', async () => {
    const q = fx.open();
    const err = await rejected(q.enqueue('a', {}, { dealy: 5 } as never));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.code).toBe('LJ_ERR_UNKNOWN_OPTION');
    expect(err.message).toContain('dealy');
    expect((await q.stats()).total).toBe(0);
  });

  it('refuses payloads that are not JSON', async () => {
    const q = fx.open();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect((await rejected(q.enqueue('a', circular))).code).toBe('LJ_ERR_PAYLOAD_NOT_JSON');
    expect((await rejected(q.enqueue('a', { n: 10n }))).code).toBe('LJ_ERR_PAYLOAD_NOT_JSON');
    expect((await q.stats()).total).toBe(0);
  });

  it('refuses payloads over the configured size', async () => {
    const q = fx.open({ maxPayloadBytes: 100 });
    const err = await rejected(q.enqueue('a', { s: 'é'.repeat(60) }));
    expect(err.code).toBe('LJ_ERR_PAYLOAD_TOO_LARGE');
    await expect(q.enqueue('a', { s: 'x'.repeat(50) })).resolves.toMatchObject({ created: true });
    expect((await q.stats()).total).toBe(1);
  });

  it('refuses bad names, delays, priorities, timeouts and retry policies', async () => {
    const q = fx.open();
    const cases: Array<[string, unknown, object | undefined]> = [
      ['', {}, undefined],
      ['a', {}, { delay: -1 }],
      ['a', {}, { delay: 5, runAt: Date.now() }],
      ['a', {}, { priority: 1.5 }],
      ['a', {}, { timeout: 0 }],
      ['a', {}, { key: '' }],
      ['a', {}, { retry: { attempts: 0 } }],
      ['a', {}, { retry: { backoff: { type: 'cubic', delay: 1 } } }],
      ['a', {}, { retry: { backoff: () => 5 } }],
      ['a', {}, { retry: { jitter: 2 } }],
    ];
    for (const [name, payload, options] of cases) {
      const err = await rejected(q.enqueue(name, payload, options as never));
      expect(err.code, JSON.stringify(options)).toBe('LJ_ERR_VALIDATION');
    }
    expect((await q.stats()).total).toBe(0);
  });

  it('enqueueMany writes all or nothing', async () => {
    const q = fx.open();
    const err = await rejected(
      q.enqueueMany([
        { name: 'a', payload: 1 },
        { name: 'a', payload: 2, options: { priority: 'high' as never } },
      ]),
    );
    expect(err.code).toBe('LJ_ERR_VALIDATION');
    expect((await q.stats()).total).toBe(0);
    const ok = await q.enqueueMany([
      { name: 'a', payload: 1 },
      { name: 'b', payload: 2, options: { key: 'k' } },
      { name: 'b', payload: 3, options: { key: 'k' } },
    ]);
    expect(ok.map((r) => r.created)).toEqual([true, true, false]);
    expect(ok[2]!.id).toBe(ok[1]!.id);
  });

  it('refuses unknown createQueue options and bad values', () => {
    const target = fx.target();
    const make = (o: object) => () => createQueue({ ...target, logger: silentLogger, ...o } as never);
    expect(make({ concurency: 4 })).toThrow(expect.objectContaining({ code: 'LJ_ERR_UNKNOWN_OPTION' }));
    expect(make({ concurrency: 0 })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    expect(make({ durability: 'extra' })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    const job = defineJob({ name: 'x', handler: () => 1 });
    expect(make({ jobs: [job, job] })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
  });

  it('refuses bad job definitions', () => {
    expect(() => defineJob({ name: 'x', handler: 'nope' as never })).toThrow(ValidationError);
    expect(() => defineJob({ name: 'x', handler: () => 1, retries: 3 } as never)).toThrow(
      expect.objectContaining({ code: 'LJ_ERR_UNKNOWN_OPTION' }),
    );
    expect(() => defineJob({ name: 'x', handler: () => 1, retry: { attempts: -1 } })).toThrow(ValidationError);
  });

  it('refuses unknown and malformed job ids', async () => {
    const q = fx.open();
    expect((await rejected(q.getJob(12345))).code).toBe('LJ_ERR_JOB_NOT_FOUND');
    expect((await rejected(q.history(12345))).code).toBe('LJ_ERR_JOB_NOT_FOUND');
    expect((await rejected(q.cancel(12345))).code).toBe('LJ_ERR_JOB_NOT_FOUND');
    expect((await rejected(q.getJob(-1))).code).toBe('LJ_ERR_VALIDATION');
    expect((await rejected(q.getJob('7' as never))).code).toBe('LJ_ERR_VALIDATION');
  });

  it('refuses calls on a closed queue', async () => {
    const q = fx.open();
    await q.close();
    expect((await rejected(q.enqueue('a', 1))).code).toBe('LJ_ERR_QUEUE_CLOSED');
  });

  it('refuses a delay or runAt a Date cannot hold, instead of storing a job that reads back as Invalid Date', async () => {
    const q = fx.open();
    expect((await rejected(q.enqueue('a', {}, { delay: 1e300 }))).code).toBe('LJ_ERR_VALIDATION');
    expect((await rejected(q.enqueue('a', {}, { runAt: 8.64e15 + 1 }))).code).toBe('LJ_ERR_VALIDATION');
    expect((await rejected(q.enqueue('a', {}, { runAt: new Date(Number.NaN) }))).code).toBe('LJ_ERR_VALIDATION');
    expect((await q.stats()).total).toBe(0);
    // The last representable instant is fine, and reads back as a real date.
    const { id } = await q.enqueue('a', {}, { runAt: 8.64e15 });
    expect((await q.getJob(id)).runAt.getTime()).toBe(8.64e15);
  });

  it('refuses an unknown listJobs filter key instead of ignoring it', async () => {
    const q = fx.open();
    await q.enqueue('a', {});
    const err = await rejected(q.listJobs({ stat: 'pending' } as never));
    expect(err.code).toBe('LJ_ERR_UNKNOWN_OPTION');
    expect(err.message).toContain('stat');
  });
});
