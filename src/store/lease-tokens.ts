/**
 * The lease tokens a store hands out: a prefix of its own (the process, the
 * time it opened, a random part: unique among every store that ever opens
 * the same database), then a count. A token names one claim; the prefix
 * also names the store in the PostgreSQL store's change notifications.
 */
export interface LeaseTokens {
  /** This store's prefix. */
  readonly instance: string;
  /** A token no claim of any store has had. */
  next(): string;
}

export function createLeaseTokens(): LeaseTokens {
  const instance = `${process.pid.toString(36)}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 10)}`;
  let seq = 0;
  return { instance, next: () => `${instance}.${(++seq).toString(36)}` };
}
