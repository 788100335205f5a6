/**
 * Times every claim a queue makes: its store's `claim` (reached through the
 * queue's internals, as the dashboard reaches the store) is wrapped before the
 * workers start. On SQLite the claim's transaction runs inside the call, so
 * call-to-settle is the transaction; on PostgreSQL it includes the round trips.
 */
import type { Queue } from '../../src/index.js';
import { internalsOf } from '../../src/queue-internals.js';

export interface ClaimTimes {
  /** Claims made, and those that leased nothing. */
  claims: number;
  empty: number;
  /** Claims that left due jobs behind for a limit (`heldBack`). */
  heldBack: number;
  jobs: number;
  ms: number;
}

export function timeClaims(queue: Queue): ClaimTimes {
  const times: ClaimTimes = { claims: 0, empty: 0, heldBack: 0, jobs: 0, ms: 0 };
  const store = internalsOf(queue).store;
  const claim = store.claim.bind(store);
  store.claim = async (request) => {
    const t0 = performance.now();
    const result = await claim(request);
    times.ms += performance.now() - t0;
    times.claims++;
    times.jobs += result.jobs.length;
    if (result.jobs.length === 0) times.empty++;
    if (result.heldBack) times.heldBack++;
    return result;
  };
  return times;
}

/** The claim figures of one round: µs of claim per job leased, and jobs per claim. */
export function claimMetrics(t: ClaimTimes): { claimUs: number; perClaim: number } {
  return { claimUs: t.jobs > 0 ? (t.ms * 1000) / t.jobs : Number.NaN, perClaim: t.claims > 0 ? t.jobs / t.claims : Number.NaN };
}
