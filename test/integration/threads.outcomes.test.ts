import { describe, expect, it } from 'vitest';
import type { Handler, HandlerContext } from '../../src/engine/core/job-definition.js';
import { Abortable } from '../../src/lib/abortable.js';
import { runHandler, type Outcome } from '../../src/engine/run/job-runner.js';
import type { ThreadOutcome } from '../../src/engine/run/threads/thread-pool.js';
import outcomes from '../fixtures/thread-handlers/outcomes.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { handlerModule, never, recordingHost, threadJob, usePools } from '../helpers/thread-pool.js';

const pool = usePools();

const mainThreadHandler: Handler = (payload) => outcomes(payload as { kind: string });
const mainThreadCtx: HandlerContext = {
  jobId: 1,
  name: 'outcomes',
  attempt: 1,
  slot: undefined,
  signal: never(),
  heartbeat: async () => undefined,
  progress: async () => undefined,
  log: silentLogger,
  children: async () => [],
  childCounts: async () => ({}),
  step: async (_name, fn) => fn(),
  sleep: async () => undefined,
  waitFor: async () => null,
  publish: async () => undefined,
  trace: undefined,
};

/** What must agree between the two runners (a stack differs below its first line). */
function comparable(outcome: Outcome | ThreadOutcome): unknown {
  if (outcome.kind !== 'failed') return outcome;
  const { stack, ...rest } = outcome.error;
  return { ...rest, stackHead: stack?.split('\n')[0] };
}

describe('a handler in a thread: payload, result and errors', () => {
  it('gets its payload and ctx fields, and its result comes back as JSON text', async () => {
    const p = pool({ size: 1 });
    const job = threadJob('echo', { n: 1, s: 'é', list: [true, null] }, { name: 'resize', attempt: 3 });
    const outcome = await p.run(job, recordingHost(), never());
    expect(outcome.kind).toBe('completed');
    const result = JSON.parse((outcome as { result: string }).result) as Record<string, unknown>;
    expect(result).toMatchObject({ payload: { n: 1, s: 'é', list: [true, null] }, jobId: job.jobId, name: 'resize', attempt: 3 });
    expect(result.threadId).toBeGreaterThan(0); // not the main thread (0)
    expect(await p.run(threadJob('echo', 'undefined'), recordingHost(), never())).toEqual({ kind: 'completed', result: undefined });
  });

  it('finds the handler as a default function, a named `handler` export, or a defineJob result', async () => {
    const p = pool({ size: 1 });
    const named = await p.run(threadJob('named-handler', 7), recordingHost(), never());
    expect(named).toEqual({ kind: 'completed', result: JSON.stringify({ via: 'named', payload: 7 }) });
    const defined = await p.run(threadJob('define-job', 'x'), recordingHost(), never());
    expect(defined).toEqual({ kind: 'completed', result: JSON.stringify({ via: 'defineJob', payload: 'x' }) });
  });

  it('a module without a handler fails with LJ_ERR_VALIDATION naming the module', async () => {
    const outcome = await pool({ size: 1 }).run(threadJob('no-handler', null), recordingHost(), never());
    expect(outcome).toMatchObject({ kind: 'failed', error: { name: 'ValidationError', code: 'LJ_ERR_VALIDATION' } });
    expect((outcome as { error: { message: string } }).error.message).toContain(handlerModule('no-handler'));
  });

  it('a module that cannot be loaded, or a payload that is not JSON, fails the job', async () => {
    const p = pool({ size: 1 });
    const missing = await p.run(threadJob('does-not-exist', null), recordingHost(), never());
    expect(missing).toMatchObject({ kind: 'failed', error: { code: 'ERR_MODULE_NOT_FOUND' } });
    const badPayload = await p.run({ ...threadJob('echo', null), payload: '{not json' }, recordingHost(), never());
    expect(badPayload).toMatchObject({ kind: 'failed', error: { name: 'SyntaxError' } });
  });

  it('a thrown Error keeps its name, message, code and stack', async () => {
    const outcome = await pool({ size: 1 }).run(threadJob('outcomes', { kind: 'throw' }), recordingHost(), never());
    expect(outcome).toMatchObject({ kind: 'failed', error: { name: 'PaymentDeclined', message: 'card declined', code: 'E_DECLINED' } });
    const { stack } = (outcome as { error: { stack: string } }).error;
    expect(stack).toMatch(/^PaymentDeclined: card declined\n/);
    expect(stack).toContain('outcomes.ts');
  });

  it('RetryLaterError gives retryAfter and UnrecoverableError gives unrecoverable, also when thrown from another copy of the classes', async () => {
    const p = pool({ size: 1 });
    const run = (kind: string) => p.run(threadJob('outcomes', { kind }), recordingHost(), never());
    expect(await run('retry-later')).toMatchObject({ kind: 'failed', error: { name: 'RetryLaterError', code: 'LJ_ERR_RETRY_LATER', retryAfter: 5000 } });
    expect(await run('unrecoverable')).toMatchObject({ kind: 'failed', error: { name: 'UnrecoverableError', code: 'LJ_ERR_UNRECOVERABLE', unrecoverable: true } });
    expect(await run('foreign-retry-later')).toMatchObject({ kind: 'failed', error: { code: 'LJ_ERR_RETRY_LATER', retryAfter: 2500 } });
    expect(await run('foreign-unrecoverable')).toMatchObject({ kind: 'failed', error: { code: 'LJ_ERR_UNRECOVERABLE', unrecoverable: true } });
  });

  it('an error whose message getter throws still fails the job, with a fixed message', async () => {
    const outcome = await pool({ size: 1 }).run(threadJob('outcomes', { kind: 'unreadable-message' }), recordingHost(), never());
    expect(outcome).toMatchObject({ kind: 'failed', error: { name: 'UnreadableMessage', message: "(the error's message could not be read)" } });
  });

  it('a result JSON cannot hold fails as unrecoverable; every kind of outcome matches the main-thread runner', async () => {
    const p = pool({ size: 1 });
    const kinds = ['object', 'string', 'null', 'undefined', 'bigint', 'cyclic', 'function', 'symbol', 'throw', 'throw-string', 'retry-later', 'unrecoverable', 'foreign-retry-later', 'foreign-unrecoverable', 'unreadable-message'];
    for (const kind of kinds) {
      const payload = JSON.stringify({ kind });
      const inThread = await p.run({ ...threadJob('outcomes', null), payload }, recordingHost(), never());
      const inMain = await runHandler(mainThreadHandler, payload, mainThreadCtx, new Abortable());
      expect(comparable(inThread), kind).toEqual(comparable(inMain));
    }
    const bigint = await p.run(threadJob('outcomes', { kind: 'bigint' }), recordingHost(), never());
    expect(bigint).toMatchObject({ kind: 'failed', error: { code: 'LJ_ERR_UNRECOVERABLE', unrecoverable: true } });
    expect((bigint as { error: { message: string } }).error.message).toMatch(/^result is not JSON-serialisable: .*BigInt/);
    expect(await p.run(threadJob('outcomes', { kind: 'cyclic' }), recordingHost(), never())).toMatchObject({ kind: 'failed', error: { unrecoverable: true } });
  });
});
