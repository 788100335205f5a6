import { describe, expect, it } from 'vitest';
import {
  computeBackoff,
  DEFAULT_RETRY_POLICY,
  isRetryableError,
  resolveRetryPolicy,
  type ErrorInfo,
  type RetryPolicy,
} from '../../machines/policy.js';

const error = (over: Partial<ErrorInfo> = {}): ErrorInfo => ({ name: 'Error', message: 'boom', ...over });
const delays = (policy: RetryPolicy, attempts: number[], random = 0) =>
  attempts.map((a) => computeBackoff(resolveRetryPolicy(policy), a, error(), random));

/** Just below 1: `random` is drawn in [0, 1). */
const ALMOST_ONE = 1 - Number.EPSILON;

describe('resolveRetryPolicy', () => {
  it('fills every default when given nothing', () => {
    expect(resolveRetryPolicy()).toEqual(DEFAULT_RETRY_POLICY);
    expect(resolveRetryPolicy(undefined, {})).toEqual({
      attempts: 3,
      backoff: { type: 'exponential', delay: 1000, factor: 2 },
      jitter: 0,
      maxDelay: 3_600_000,
      retryOn: undefined,
      deadOn: undefined,
      maxRetryLater: 100,
    });
  });

  it('lets later layers override earlier ones key by key', () => {
    const resolved = resolveRetryPolicy({ attempts: 7, jitter: 0.2 }, { jitter: 0.5, deadOn: ['X'] });
    expect(resolved).toMatchObject({ attempts: 7, jitter: 0.5, deadOn: ['X'], maxDelay: 3_600_000 });
  });

  it('ignores keys set to undefined instead of erasing the earlier value', () => {
    expect(resolveRetryPolicy({ attempts: 9 }, { attempts: undefined }).attempts).toBe(9);
  });

  it('does not mutate the shared defaults', () => {
    resolveRetryPolicy({ attempts: 42 });
    expect(DEFAULT_RETRY_POLICY.attempts).toBe(3);
  });
});

describe('computeBackoff curves', () => {
  it('fixed waits the same delay after every attempt', () => {
    expect(delays({ backoff: { type: 'fixed', delay: 250 } }, [1, 2, 5])).toEqual([250, 250, 250]);
  });

  it('linear waits delay × attempts spent', () => {
    expect(delays({ backoff: { type: 'linear', delay: 100 } }, [1, 2, 3, 10])).toEqual([100, 200, 300, 1000]);
  });

  it('exponential doubles by default, starting at the base delay after the first attempt', () => {
    expect(delays({ backoff: { type: 'exponential', delay: 100 } }, [1, 2, 3, 4])).toEqual([100, 200, 400, 800]);
  });

  it('exponential uses the given factor', () => {
    expect(delays({ backoff: { type: 'exponential', delay: 10, factor: 3 } }, [1, 2, 3])).toEqual([10, 30, 90]);
  });

  it('a custom function gets the attempt and the error, and its result is used', () => {
    const seen: Array<[number, string]> = [];
    const policy = resolveRetryPolicy({
      backoff: (attempt, e) => {
        seen.push([attempt, e.name]);
        return e.name === 'SlowDown' ? 5000 : attempt * 7;
      },
    });
    expect(computeBackoff(policy, 3, error(), 0)).toBe(21);
    expect(computeBackoff(policy, 1, error({ name: 'SlowDown' }), 0)).toBe(5000);
    expect(seen).toEqual([
      [3, 'Error'],
      [1, 'SlowDown'],
    ]);
  });

  it('treats a custom delay that is negative or NaN as zero', () => {
    expect(delays({ backoff: () => -50 }, [1])).toEqual([0]);
    expect(delays({ backoff: () => Number.NaN }, [1])).toEqual([0]);
  });

  it('rounds to whole milliseconds', () => {
    expect(delays({ backoff: () => 10.6 }, [1])).toEqual([11]);
  });
});

describe('computeBackoff maxDelay', () => {
  it('caps every curve at maxDelay', () => {
    expect(delays({ backoff: { type: 'exponential', delay: 1000 }, maxDelay: 5000 }, [1, 3, 4, 20])).toEqual([
      1000, 4000, 5000, 5000,
    ]);
    expect(delays({ backoff: { type: 'linear', delay: 1000 }, maxDelay: 2500 }, [2, 3])).toEqual([2000, 2500]);
    expect(delays({ backoff: () => 1e9, maxDelay: 60_000 }, [1])).toEqual([60_000]);
  });

  it('caps before applying jitter, so jitter still spreads capped delays', () => {
    const policy = { backoff: { type: 'fixed', delay: 10_000 }, maxDelay: 1000, jitter: 0.5 } as const;
    expect(delays(policy, [1], 0)).toEqual([1000]);
    expect(delays(policy, [1], ALMOST_ONE)).toEqual([500]);
  });

  // An exponential curve keeps growing with the attempt number until the
  // double overflows to Infinity; the cap must still hold there.
  it('still waits maxDelay when an exponential curve overflows (e.g. attempt 1100 of a long policy)', () => {
    const policy = { attempts: 5000, backoff: { type: 'exponential', delay: 1000 } } as const;
    expect(delays(policy, [1000])).toEqual([3_600_000]);
    expect(delays(policy, [1100])).toEqual([3_600_000]);
  });
});

describe('computeBackoff jitter', () => {
  const policy = (jitter: number) => ({ backoff: { type: 'fixed', delay: 1000 }, jitter }) as const;

  it('waits the full delay when random is 0', () => {
    expect(delays(policy(0.3), [1], 0)).toEqual([1000]);
  });

  it('takes off almost jitter × delay when random is near 1', () => {
    expect(delays(policy(0.3), [1], ALMOST_ONE)).toEqual([700]);
    expect(delays(policy(1), [1], 0.999)).toEqual([1]);
  });

  it('takes off jitter × random × delay in between', () => {
    expect(delays(policy(0.5), [1], 0.5)).toEqual([750]);
  });

  it('stays within [delay × (1 − jitter), delay] for any random in [0, 1)', () => {
    for (let i = 0; i < 100; i++) {
      const random = i / 100;
      const [d] = delays(policy(0.4), [1], random);
      expect(d).toBeGreaterThanOrEqual(600);
      expect(d).toBeLessThanOrEqual(1000);
    }
  });

  it('ignores random entirely when jitter is 0', () => {
    expect(delays(policy(0), [1], 0.9)).toEqual([1000]);
  });

  it('clamps a random outside [0, 1] and treats a non-finite one as 0', () => {
    expect(delays(policy(0.5), [1], 7)).toEqual([500]);
    expect(delays(policy(0.5), [1], -3)).toEqual([1000]);
    expect(delays(policy(0.5), [1], Number.NaN)).toEqual([1000]);
  });
});

describe('isRetryableError', () => {
  const retryable = (policy: RetryPolicy, e: ErrorInfo) => isRetryableError(resolveRetryPolicy(policy), e);

  it('retries every error by default', () => {
    expect(retryable({}, error({ name: 'TypeError' }))).toBe(true);
  });

  it('never retries an unrecoverable error, whatever retryOn says', () => {
    expect(retryable({}, error({ unrecoverable: true }))).toBe(false);
    expect(retryable({ retryOn: ['Error'] }, error({ unrecoverable: true }))).toBe(false);
  });

  it('deadOn matches by error name', () => {
    const policy = { deadOn: ['AuthError'] };
    expect(retryable(policy, error({ name: 'AuthError' }))).toBe(false);
    expect(retryable(policy, error({ name: 'NetError' }))).toBe(true);
  });

  it('deadOn matches by error code', () => {
    const policy = { deadOn: ['E_FORBIDDEN'] };
    expect(retryable(policy, error({ code: 'E_FORBIDDEN' }))).toBe(false);
    expect(retryable(policy, error({ code: 'E_TIMEOUT' }))).toBe(true);
    expect(retryable(policy, error())).toBe(true);
  });

  it('deadOn accepts a predicate', () => {
    const policy = { deadOn: (e: ErrorInfo) => e.message.includes('permanent') };
    expect(retryable(policy, error({ message: 'permanent failure' }))).toBe(false);
    expect(retryable(policy, error({ message: 'try again' }))).toBe(true);
  });

  it('retryOn retries only the listed names', () => {
    const policy = { retryOn: ['TimeoutError'] };
    expect(retryable(policy, error({ name: 'TimeoutError' }))).toBe(true);
    expect(retryable(policy, error({ name: 'TypeError' }))).toBe(false);
  });

  it('retryOn matches by code too', () => {
    const policy = { retryOn: ['ECONNRESET'] };
    expect(retryable(policy, error({ name: 'Error', code: 'ECONNRESET' }))).toBe(true);
    expect(retryable(policy, error({ name: 'Error', code: 'EACCES' }))).toBe(false);
  });

  it('retryOn accepts a predicate', () => {
    const policy = { retryOn: (e: ErrorInfo) => e.code?.startsWith('E_NET') ?? false };
    expect(retryable(policy, error({ code: 'E_NET_DOWN' }))).toBe(true);
    expect(retryable(policy, error())).toBe(false);
  });

  it('deadOn wins over retryOn for an error both match', () => {
    expect(retryable({ retryOn: ['HttpError'], deadOn: ['E_401'] }, error({ name: 'HttpError', code: 'E_401' }))).toBe(false);
  });
});
