/**
 * Retry policy: the declarative description a user writes, and the pure math
 * that turns it into delays. The job machine compiles a policy into its guards
 * (`wantsRetryLater`, `canRetry`) and its `retryDelay` delay.
 *
 * Pure: imports nothing, so the machine stays free of I/O.
 */

/** What the machine knows of an error thrown by a handler (it must survive JSON). */
export interface ErrorInfo {
  name: string;
  message: string;
  code?: string;
  stack?: string;
  /** Set by `RetryLaterError(ms)`: retry after exactly this many ms, without spending an attempt. */
  retryAfter?: number;
  /** Set by `UnrecoverableError`: go straight to `dead`. */
  unrecoverable?: boolean;
  /**
   * A RateLimitedError: the job goes back to pending without spending an
   * attempt, and its name or group is paused for `delay` ms. The engine
   * handles it before the machine sees a failure.
   */
  rateLimited?: { delay: number; scope: 'name' | 'group' };
  /** The HTTP response a litejobs error carries (`WebhookDeliveryError`): its status… */
  status?: number;
  /** …a few of its headers (lower-case names)… */
  headers?: Record<string, string>;
  /** …and an excerpt of its body. */
  body?: string;
}

/** A backoff curve: `delay` is the base in ms. */
export type Backoff =
  | { type: 'fixed'; delay: number }
  | { type: 'linear'; delay: number }
  | { type: 'exponential'; delay: number; factor?: number }
  | ((attempt: number, error: ErrorInfo) => number);

/** Which errors may be retried: a list of error names (or codes), or a predicate. */
export type ErrorMatcher = readonly string[] | ((error: ErrorInfo) => boolean);

export interface RetryPolicy {
  /** Total attempts, the first run included. `1` means never retry. */
  attempts?: number;
  backoff?: Backoff;
  /** Fraction of each delay drawn at random, 0..1: `delay * (1 - jitter * random)`. */
  jitter?: number;
  /** Upper bound for any computed delay, ms. */
  maxDelay?: number;
  /**
   * Only these errors are retried (others go to `dead`). Default: all. An
   * expired lease (`LeaseExpiredError`: the worker crashed or stalled) is
   * retried whatever this says, unless `deadOn` names it.
   */
  retryOn?: ErrorMatcher;
  /** These errors go straight to `dead`, whatever attempts remain. */
  deadOn?: ErrorMatcher;
  /**
   * How many `RetryLaterError`s in a row run again without spending an
   * attempt; past this, one spends an attempt like any failure. Default 100.
   * Their delays are capped by `maxDelay`.
   */
  maxRetryLater?: number;
}

/** A policy with every default filled in. */
export interface ResolvedRetryPolicy {
  attempts: number;
  backoff: Backoff;
  jitter: number;
  maxDelay: number;
  retryOn: ErrorMatcher | undefined;
  deadOn: ErrorMatcher | undefined;
  maxRetryLater: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<ResolvedRetryPolicy> = Object.freeze<ResolvedRetryPolicy>({
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000, factor: 2 },
  jitter: 0,
  maxDelay: 60 * 60 * 1000,
  retryOn: undefined,
  deadOn: undefined,
  maxRetryLater: 100,
});

/** Layers policies: later ones override earlier ones, key by key. */
export function resolveRetryPolicy(...layers: Array<RetryPolicy | undefined>): ResolvedRetryPolicy {
  const out: ResolvedRetryPolicy = { ...DEFAULT_RETRY_POLICY };
  for (const layer of layers) {
    if (!layer) continue;
    for (const key of Object.keys(layer) as Array<keyof RetryPolicy>) {
      const value = layer[key];
      if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
    }
  }
  return out;
}

/**
 * The delay before retry number `attempt + 1`, after `attempt` attempts failed.
 * `random` is drawn by the caller (in [0, 1)) so the machine stays deterministic.
 */
export function computeBackoff(policy: ResolvedRetryPolicy, attempt: number, error: ErrorInfo, random: number): number {
  const b = policy.backoff;
  let base: number;
  if (typeof b === 'function') base = b(attempt, error);
  else if (b.type === 'fixed') base = b.delay;
  else if (b.type === 'linear') base = b.delay * attempt;
  else base = b.delay * (b.factor ?? 2) ** Math.max(0, attempt - 1);
  // An exponential curve overflows to Infinity after enough attempts: that is "as long as allowed".
  if (Number.isNaN(base) || base < 0) base = 0;
  const capped = Math.min(base, policy.maxDelay);
  const jittered = capped * (1 - policy.jitter * clamp01(random));
  return Math.max(0, Math.round(jittered));
}

export function matchesError(matcher: ErrorMatcher, error: ErrorInfo): boolean {
  if (typeof matcher === 'function') return matcher(error);
  return matcher.includes(error.name) || (error.code !== undefined && matcher.includes(error.code));
}

/** The error the lease sweeper records for a worker that crashed or stalled. */
export const LEASE_EXPIRED = 'LeaseExpiredError';

/** True when the policy allows another attempt for this error (attempts aside). */
export function isRetryableError(policy: ResolvedRetryPolicy, error: ErrorInfo): boolean {
  if (error.unrecoverable) return false;
  if (policy.deadOn && matchesError(policy.deadOn, error)) return false;
  if (policy.retryOn && !matchesError(policy.retryOn, error) && error.name !== LEASE_EXPIRED) return false;
  return true;
}

function clamp01(n: number): number {
  return Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0;
}
