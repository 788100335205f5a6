/** What the stores keep and enforce for concurrency groups and limits (claim-limits.ts has the rules). */
import type { LeasedJob } from './store.js';

/** What one job name may use at once, across every process (claim-limits.ts enforces it). */
export interface NameLimits {
  /** Jobs of one group (this name's jobs counting every job of the group) running at once. */
  groupConcurrency?: number;
  /** Jobs of this name running at once. */
  globalConcurrency?: number;
  rateLimit?: RateLimitRule;
}

/** At most `max` claims in any `perMs` window: each token spent comes back `perMs` later. */
export interface RateLimitRule {
  max: number;
  perMs: number;
  /** A bucket per group for this name's grouped jobs (ungrouped ones share the name's). */
  perGroup: boolean;
}

/**
 * Due jobs a claim left behind for a limit: `until` is when a rate-limit
 * token or a pause comes back, null when only a running job's end frees them
 * (the claim loop then waits for one); `tokensOut` when some stayed for lack
 * of a rate-limit token.
 */
export interface HeldBack {
  until: number | null;
  tokensOut?: boolean;
}

/** A claim's jobs, in claim order, and what it left behind for a limit (absent: nothing). */
export interface ClaimResult {
  jobs: LeasedJob[];
  heldBack?: HeldBack;
}

/** Which limit row: a name's, a group's, or one group's bucket of a name (`name\u0000group`). */
export type LimitKind = 'name' | 'group' | 'name-group';

/** A row of the limits a store keeps (rate-limit buckets, pauses, group concurrency set per group). */
export interface LimitRecord {
  kind: LimitKind;
  key: string;
  /** Group concurrency set for this group (`queue.setGroupConcurrency`), overriding the definitions'. */
  concurrency: number | null;
  /** Claims spent in the bucket, as [at, count] pairs, oldest first (only those not yet returned matter). */
  spent: Array<[number, number]>;
  /** No claim of this name or group before this time (a handler's RateLimitedError). */
  pausedUntil: number | null;
  updatedAt: number;
}

export interface GroupCount {
  group: string;
  pending: number;
  running: number;
}

/** A name or group no claim may take before `until` (a handler's RateLimitedError). */
export interface LimitPause {
  kind: 'name' | 'group';
  key: string;
  until: number;
}
