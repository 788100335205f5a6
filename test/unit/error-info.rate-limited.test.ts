/** What toErrorInfo makes of a RateLimitedError's delay: whole milliseconds, at most a year, by class or by code. */
import { describe, expect, it } from 'vitest';
import { MAX_RATE_LIMITED_MS, toErrorInfo } from '../../src/engine/run/job-runner.js';
import { RateLimitedError } from '../../src/errors.js';

describe('toErrorInfo and RateLimitedError', () => {
  it('rounds a delay up to whole milliseconds', () => {
    expect(toErrorInfo(new RateLimitedError(250.2)).rateLimited).toEqual({ delay: 251, scope: 'group' });
  });

  it('bounds a delay at a year, from this copy of litejobs or another (by code)', () => {
    expect(toErrorInfo(new RateLimitedError(1e300, { scope: 'name' })).rateLimited).toEqual({ delay: MAX_RATE_LIMITED_MS, scope: 'name' });
    const foreign = Object.assign(new Error('slow down'), { code: 'LJ_ERR_RATE_LIMITED', delay: Number.MAX_VALUE });
    expect(toErrorInfo(foreign).rateLimited).toEqual({ delay: MAX_RATE_LIMITED_MS, scope: 'group' });
    // Not a delay at all: no pause.
    expect(toErrorInfo(Object.assign(new Error('x'), { code: 'LJ_ERR_RATE_LIMITED', delay: Number.NaN })).rateLimited).toBeUndefined();
  });
});
