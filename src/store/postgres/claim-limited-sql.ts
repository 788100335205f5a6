/**
 * The statements of a limited claim (claim-limited.ts), in sql/claim-limited-*.sql
 * and sql/limits-*.sql, the counterparts of the SQLite store's claim-running,
 * limits-active, claim-ready, claim-group-walk, claim-group-heads,
 * limits-buckets, claim-lease and limits-spend files. They are sent in the
 * simple protocol with their values written in as literals (`literal`): the
 * planner sees that `state = 'pending'` matches the partial indexes
 * jobs_ready and jobs_grouped, and several statements go in one round trip.
 */
import type { ClaimRule } from '../store.js';
import { literal, statement } from './sql.js';

const ints = (values: readonly number[]) => `ARRAY[${values.map((v) => literal(v)).join(', ')}]::int[]`;
const ids = (values: readonly number[]) => `ARRAY[${values.map((v) => literal(v)).join(', ')}]::bigint[]`;

export interface ClaimTerms {
  schema: string;
  rule: ClaimRule;
  /** Due times are compared with it (the claimer's clock). */
  now: number;
  /** Pauses are compared with it (the database's clock: ClaimRequest `rate`). */
  limitsNow: number;
  names: readonly string[];
}

export function limitedStatements(t: ClaimTerms) {
  const common = { from: literal(t.rule.from), claimed: literal(t.rule.to), now: literal(t.now), limitsNow: literal(t.limitsNow), names: literal(t.names) };
  const q = (name: string, parts: Record<string, string> = {}) => statement(name, t.schema, { ...common, ...parts });

  return {
    /** The lock that serializes limited claims, then the facts they decide on (sql/claim-limited-facts.sql). */
    facts: q('claim-limited-facts', { lockKey: literal(`litejobs claim ${t.schema}`) }),

    /** Ungrouped due jobs of these names, along jobs_ready (sql/claim-limited-ready.sql). */
    ready: (of: readonly string[], limit: number) => q('claim-limited-ready', { names: literal(of), limit: literal(limit) }),

    /** The walk over groups after `cursor`, then up to it, stepping over `skip`, up to `limit` groups with a job (sql/claim-limited-walk.sql). */
    walk: (cursor: string, skip: readonly string[], limit: number) => q('claim-limited-walk', { cursor: literal(cursor), skip: literal(skip), limit: literal(limit) }),

    /** Whether any of these groups (skipped by the walk, at their limit) has a due job of the names: a job held back. */
    dueIn: (groups: readonly string[]) => q('claim-limited-due-in', { groups: literal(groups) }),

    /** Up to `limits[i]` due jobs of group `groups[i]`, in claim order (sql/claim-limited-heads.sql). */
    heads: (groups: readonly string[], limits: readonly number[]) => q('claim-limited-heads', { groups: literal(groups), counts: ints(limits) }),

    /** Buckets of one group of a name (sql/limits-buckets.sql). */
    buckets: (keys: readonly string[]) => q('limits-buckets', { keys: literal(keys) }),

    /** The lease, by primary key, with the claim's history rows (sql/claim-limited-lease.sql). */
    lease: (chosen: readonly number[], o: { owner: string; token: string; lockedUntil: number; history: boolean }) =>
      q('claim-limited-lease', {
        attempts: literal(t.rule.attempts),
        owner: literal(o.owner),
        token: literal(o.token),
        lockedUntil: literal(o.lockedUntil),
        ids: ids(chosen),
        event: literal(t.rule.event),
        history: o.history ? 'true' : 'false',
      }),

    /** Buckets' logs after the claim spent from them (sql/limits-spend.sql). */
    spend: (rows: ReadonlyArray<{ kind: string; key: string; spent: string }>) =>
      q('limits-spend', { kinds: literal(rows.map((r) => r.kind)), keys: literal(rows.map((r) => r.key)), spents: literal(rows.map((r) => r.spent)) }),
  };
}
