/**
 * A claim that limits decide (claim-limits.ts has the rules), the
 * counterpart of the SQLite store's claim-limited.ts: taken when a claimed
 * name has a limit of its own or grouped jobs are pending (claim.ts).
 *
 * One transaction. It first takes an advisory lock on the schema's claim
 * key, so that limited claims of every process run one after another, as
 * SQLite's BEGIN IMMEDIATE makes them: each reads the jobs leased now and
 * the buckets after the previous one committed, and no two can both take a
 * group's last slot or a bucket's last token. Fast claims (claim.ts) do not
 * wait for it: they take only ungrouped jobs of names without limits, and
 * the candidates read here are locked FOR UPDATE SKIP LOCKED, so the two
 * never lease one job.
 *
 * Grouped jobs are found by a walk over the groups along jobs_grouped, from
 * where this claimer's previous walk stopped, round the groups and back,
 * so every group gets its turn and a busy group (skipped) holds up none
 * behind it. Each group offers its first job; when fewer groups than the
 * claim wants have jobs, the groups found offer more, up to their free slots.
 */
import { DatabaseError } from '../../errors.js';
import { bucketId, selectClaims, type RunningCount, type Spent } from '../claim-limits.js';
import { groupBucketKeys, hasNameLimit, limitFacts, rateTerms, readLimit, widenGroups, widestLimit, withoutRatePaused } from '../limited-claim.js';
import { withoutPaused } from '../paused.js';
import { toLeasedRecord, type ReadyRow } from '../job-columns.js';
import type { ClaimRequest, LeasedJob, NameLimits } from '../store.js';
import { limitedStatements } from './claim-limited-sql.js';
import type { Database } from './open.js';
import type { Queryable, QueryResult } from './driver.js';

/** A claim as it was sent: what its jobs' records are built from. */
export interface Sent {
  state: string;
  attempts: number;
  owner: string;
  token: string;
  lockedUntil: number;
  now: number;
}

export interface LimitedResult {
  jobs: LeasedJob[];
  heldBack?: { until: number | null; tokensOut?: boolean };
  /** Whether grouped jobs were pending as the claim read: while they are, this claimer's claims come here. */
  grouped: boolean;
}

interface Facts {
  paused: string[];
  name_pauses: Array<[string, number]>;
  limits: Array<[string, string, number | null, string | null, number | null]>;
  running: Array<[string, string | null, number]>;
  grouped: boolean;
}

/** The answers of a simple-protocol request, one per statement. */
async function answers<R>(client: Queryable, text: string): Promise<Array<QueryResult<R>>> {
  const answer = (await client.query<R>(text)) as QueryResult<R> | Array<QueryResult<R>>;
  return Array.isArray(answer) ? answer : [answer];
}

export type LimitedClaim = (req: ClaimRequest, sent: Sent) => Promise<LimitedResult>;

export function createLimitedClaim(db: Database, schema: string, history: boolean): LimitedClaim {
  /** Where this claimer's walk over the groups goes on from ('' : the first group). */
  let cursor = '';

  return (req, sent) =>
    db.tx(async (client) => {
      const { now, limit } = req;
      // Due times on the claimer's clock; tokens and pauses on the database's (ClaimRequest `rate`).
      const rate = rateTerms(req);
      const limits = req.limits ?? new Map<string, NameLimits>();
      const first = limitedStatements({ schema, rule: req.rule, now, limitsNow: rate.now, names: req.names });
      const facts = (await answers<Facts>(client, first.facts)).at(-1)!.rows[0]!;
      const grouped = facts.grouped;
      const open = withoutPaused(req.names, facts.paused);
      if (open.length === 0) return { jobs: [], grouped };
      // Names a handler's RateLimitedError paused (until when: the loop comes back then).
      const { names, pauseEnds } = withoutRatePaused(open, facts.name_pauses);
      if (names.length === 0) return { jobs: [], heldBack: pauseEnds === null ? undefined : { until: pauseEnds }, grouped };

      const rows = facts.limits.map(([kind, key, concurrency, spent, pausedUntil]) => ({ kind, key, concurrency, spent, pausedUntil }));
      const { overrides, paused, buckets, wakeAt } = limitFacts(rows, rate.now, pauseEnds);
      const running: RunningCount[] = facts.running.map(([name, group_key, n]) => ({ name, group_key, n }));
      const s = limitedStatements({ schema, rule: req.rule, now, limitsNow: rate.now, names });

      // Ungrouped: names without a limit in one read; each limited name on its
      // own, one more than it may take, to learn whether it holds jobs back.
      const startNow = req.startNow ?? limit;
      const reads: string[] = [];
      const plain = names.filter((n) => !hasNameLimit(limits.get(n)));
      if (plain.length > 0) reads.push(s.ready(plain, limit));
      for (const name of names) {
        if (hasNameLimit(limits.get(name))) reads.push(s.ready([name], readLimit(name, limit, startNow, { limits, running, buckets, now: rate.now, ahead: rate.ahead })));
      }
      // Grouped: groups at their limit for every name (busy), and paused ones, are skipped by the walk.
      const runningByGroup = new Map<string, number>();
      for (const r of running) if (r.group_key !== null) runningByGroup.set(r.group_key, (runningByGroup.get(r.group_key) ?? 0) + r.n);
      const widest = (group: string) => widestLimit(group, names, limits, overrides);
      const busy = [...runningByGroup].filter(([group, n]) => n >= widest(group)).map(([group]) => group);
      reads.push(s.walk(cursor, [...paused, ...busy], limit));
      if (busy.length > 0) reads.push(s.dueIn(busy));
      const found = (await answers<ReadyRow>(client, reads.join(';\n'))).slice(-reads.length);
      const heldByBusy = busy.length > 0 && (found.pop()!.rows[0] as unknown as { due: boolean }).due;
      const ungrouped = found.slice(0, -1).flatMap((a) => a.rows);
      const groups = found.at(-1)!.rows.map((head) => ({ key: head.group_key!, heads: [head] }));

      // Few groups with jobs: let them offer more, up to their free slots.
      const wanted = limit - Math.min(limit, ungrouped.length);
      const wider = widenGroups(groups, wanted, limit, (g) => widest(g) - (runningByGroup.get(g) ?? 0));
      if (wider.length > 0) {
        const { rows } = await client.query<ReadyRow>(s.heads(wider.map((g) => g.key), wider.map((g) => g.more)));
        for (const w of wider) groups.find((g) => g.key === w.key)!.heads = rows.filter((r) => r.group_key === w.key);
      }
      const perGroup = groupBucketKeys(groups, limits);
      if (perGroup.length > 0) {
        for (const row of (await client.query<{ key: string; spent: string | null }>(s.buckets(perGroup))).rows) {
          if (row.spent !== null) buckets.set(bucketId({ kind: 'name-group', key: row.key }), JSON.parse(row.spent) as Spent);
        }
      }

      const selection = selectClaims({ limit, startNow, ahead: rate.ahead, stampAt: rate.stampAt, now: rate.now, limits, running, ungrouped, groups, overrides, buckets, pauseEnds: wakeAt });
      const writes: string[] = [];
      const chosen = selection.take.map((r) => r.id);
      if (chosen.length > 0) writes.push(s.lease(chosen, { owner: sent.owner, token: sent.token, lockedUntil: sent.lockedUntil, history }));
      if (selection.spent.length > 0) writes.push(s.spend(selection.spent.map((b) => ({ kind: b.kind, key: b.key, spent: JSON.stringify(b.spent) }))));
      if (writes.length > 0) {
        const written = await answers<{ n: number }>(client, writes.join(';\n'));
        const leased = chosen.length > 0 ? Number(written[0]!.rows[0]!.n) : 0;
        // The rows were read FOR UPDATE in this transaction: nothing can have moved them.
        if (leased !== chosen.length) throw new DatabaseError('LJ_ERR_DATABASE', `claim leased ${leased} of the ${chosen.length} jobs it read`);
      }
      if (selection.lastGroup !== undefined) cursor = selection.lastGroup;
      else if (groups.length === 0) cursor = '';
      // A busy group's jobs never reach the selection (the walk skips the group): they are held back by a running job.
      const heldBack = selection.heldBack ?? (heldByBusy && selection.take.length < limit ? { until: null } : undefined);
      const startBy = req.startWithinMs === undefined ? undefined : now + req.startWithinMs;
      const jobs = selection.take.map((r) => (startBy !== undefined && selection.rated.has(r.id) ? { ...toLeasedRecord(r, sent), startBy } : toLeasedRecord(r, sent)));
      return { jobs, heldBack, grouped };
    });
}
