import { describe, expect, it } from 'vitest';
import { never, recordingHost, threadJob, usePools } from '../helpers/thread-pool.js';

const pool = usePools();

describe('ctx across the thread boundary', () => {
  it('heartbeat, progress and log reach the host; lost leases and host failures come back to the handler', async () => {
    let heartbeats = 0;
    const host = recordingHost({
      heartbeat: async () => ++heartbeats === 1, // true, then false: the lease was lost
      progress: async (value) => {
        if (value === '7') throw Object.assign(new Error('database is locked'), { name: 'DatabaseError', code: 'LJ_ERR_DATABASE' });
        return true;
      },
    });
    const outcome = await pool({ size: 1 }).run(threadJob('context', null), host, never());
    expect(outcome.kind).toBe('completed');
    const seen = JSON.parse((outcome as { result: string }).result) as Record<string, unknown>;

    expect(host.heartbeats).toBe(2);
    // As JSON text; NaN was refused in the thread, before the host.
    expect(host.progressValues).toEqual(['42', '7']);
    expect(seen.badProgress).toEqual({ name: 'ValidationError', code: 'LJ_ERR_VALIDATION', message: 'progress must be a finite number or a JSON value, got NaN' });
    expect(seen.lost).toMatchObject({ name: 'LeaseLostError', code: 'LJ_ERR_LEASE_LOST' });
    expect(seen.hostDown).toEqual({ name: 'DatabaseError', code: 'LJ_ERR_DATABASE', message: 'database is locked' });
    expect(seen.step).toMatchObject({ name: 'ValidationError', code: 'LJ_ERR_VALIDATION', message: expect.stringMatching(/^ctx\.step\("s"\): durable steps are not available in a job with isolation 'thread'/) });
    expect(seen.sleep).toMatchObject({ name: 'ValidationError', code: 'LJ_ERR_VALIDATION', message: expect.stringMatching(/^ctx\.sleep\("nap"\)/) });
    expect(seen.stepRan).toBe(false);

    expect(host.logs.map(({ level, msg }) => [level, msg])).toEqual([
      ['info', 'hello world'],
      ['warn', 'plain'],
      ['error', 'boom'],
      ['debug', 'with err'],
    ]);
    expect(host.logs[0]!.obj).toEqual({ a: 1 });
    expect(host.logs[1]!.obj).toBeUndefined();
    // An Error, alone or under `err`, arrives as a plain object in the shape of pino's serializer.
    const boom = host.logs[2]!.obj!.err as Record<string, unknown>;
    expect(boom).toMatchObject({ type: 'CodedError', message: 'boom', code: 'E_CODED' });
    expect(boom.stack).toMatch(/^CodedError: boom\n/);
    const child = host.logs[3]!.obj!;
    expect(child).toMatchObject({ step: 'child', big: '10', err: { type: 'Error', message: 'inner' } });
    expect(child).not.toHaveProperty('fn');
    expect(Object.getPrototypeOf(boom)).toBe(Object.prototype);
  });
});
