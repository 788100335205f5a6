/**
 * Limits as the store keeps them: rate-limit buckets, pauses of a name or
 * group, group concurrency set at run time, and the counts an operator
 * reads beside them.
 */

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
