/**
 * Which due jobs a claim may take when limits are in force: concurrency
 * groups, a name's global concurrency and rate limits. Both stores gather
 * the same facts inside their claim's transaction (the jobs running now,
 * the candidates, the buckets), call `selectClaims`, lease what it chose and
 * write back the buckets it spent: the rules live here once.
 *
 * Running means leased (the claimed state): a job claimed into a prefetch
 * buffer holds its group's slot before it starts, which errs on the safe side.
 *
 * A rate-limit bucket holds `max` tokens; each token a claim spends comes
 * back `perMs` after it was spent. So no window of `perMs` ever holds more
 * than `max` claims (a classic refilling bucket lets twice that through a
 * window that straddles a full bucket and its refill).
 *
 * What a rate promises is starts, and a job starts after its claim: a token
 * stamped at the claim would come back `perMs` after it, sooner than `perMs`
 * after a start that came late (a claim answered late, a busy event loop),
 * and the next window's jobs would start within `perMs` of it. So the
 * claimer gives every rate-limited job a start deadline and hands back
 * unstarted those that miss it, and their spends are stamped at the
 * deadline (`stampAt`, on the database's clock: engine/core/shared-time.ts).
 * Tokens are counted as held from the claim until their stamp plus `perMs`
 * (a stamp may lie ahead of a later claim's clock). Then no window of
 * `perMs` holds more than `max` starts: of the jobs starting in one window,
 * the last claimed saw every other's token held (each was claimed before it,
 * and comes back no sooner than a window after its own start).
 *
 * While no limit binds, a claim may also take rate-limited jobs for a
 * prefetch buffer (`ahead`), past the first `startNow` jobs, which idle
 * workers take; once one binds, only idle workers take them, so no token
 * waits in a buffer.
 */
import type { LimitKind, NameLimits, RateLimitRule } from './store.js';

/** What a claim needs of a candidate job. */
export interface Candidate {
  id: number;
  name: string;
  priority: number;
  run_at: number;
  group_key?: string | null;
}

/**
 * Jobs leased now. A row counts for its name (global concurrency) and, with
 * a group, for its group; a store that counts a group's jobs without telling
 * names apart gives them as one row of name ''.
 */
export interface RunningCount {
  name: string;
  group_key: string | null;
  n: number;
}

export type Spent = Array<[number, number]>;

/** A bucket's row key in the limits table. */
export interface BucketRef {
  kind: LimitKind;
  key: string;
}

export interface SelectInput<C extends Candidate> {
  limit: number;
  /** Workers idle now: they take the first `startNow` jobs of the claim (in claim order). Rate-limited jobs only there, unless `ahead`. */
  startNow: number;
  /** Rate-limited jobs up to `limit`, for a prefetch buffer too. */
  ahead: boolean;
  /** No earlier than when the last rate-limited job taken may start, on the database's clock: their spends are stamped there. */
  stampAt: number;
  /** No later than the database's time as the claim reads: tokens back and pauses ended by it count. */
  now: number;
  limits: ReadonlyMap<string, NameLimits>;
  running: readonly RunningCount[];
  /** Ungrouped candidates, each name's in claim order. */
  ungrouped: readonly C[];
  /** Grouped candidates, per group in the walk's order, each group's heads in claim order. */
  groups: ReadonlyArray<{ key: string; heads: readonly C[] }>;
  /** Group concurrency set per group. */
  overrides: ReadonlyMap<string, number>;
  /** Spent logs of the buckets the candidates need, by `bucketId`. */
  buckets: ReadonlyMap<string, Spent>;
  /** The earliest end of a name's or group's pause in force (RateLimitedError), if any: jobs may be waiting for it. */
  pauseEnds?: number | null;
}

export interface Selection<C extends Candidate> {
  take: C[];
  /** Buckets spent from, with their pruned logs including this claim's spend. */
  spent: Array<BucketRef & { spent: Spent }>;
  /** The last group of the walk a job was taken from: the next claim's walk starts after it. */
  lastGroup: string | undefined;
  heldBack: HeldBack | undefined;
  /** The rate-limited jobs taken: each must start before `stampAt` or go back unstarted. */
  rated: ReadonlySet<number>;
}

/** Due jobs a claim left behind for a limit; `tokensOut`: some for lack of a rate-limit token. */
export interface HeldBack {
  until: number | null;
  tokensOut?: boolean;
}

export const bucketId = (ref: BucketRef): string => `${ref.kind}\u0000${ref.key}`;

/** The bucket a job of `name` (in `group`) spends from, if its name has a rate limit. */
export function bucketOf(name: string, group: string | null | undefined, rule: RateLimitRule | undefined): BucketRef | undefined {
  if (!rule) return undefined;
  return rule.perGroup && group ? { kind: 'name-group', key: JSON.stringify([name, group]) } : { kind: 'name', key: name };
}

/** Tokens left in a bucket at `now` (every spend whose stamp plus `perMs` is later is held), and when the next one comes back (null: the bucket is full). */
export function tokens(spent: Spent | undefined, rule: RateLimitRule, now: number): { left: number; nextAt: number | null } {
  let used = 0;
  let nextAt: number | null = null;
  for (const [at, n] of spent ?? []) {
    if (at + rule.perMs <= now) continue;
    used += n;
    nextAt = nextAt === null ? at + rule.perMs : Math.min(nextAt, at + rule.perMs);
  }
  return { left: Math.max(0, rule.max - used), nextAt };
}

/**
 * The log without the spends that came back, plus `n` stamped at `stampAt`,
 * or at the latest stamp when that is later: claims may commit out of the
 * order of their clocks (a PostgreSQL claim reads its time before it waits
 * for the lock), and the log stays in stamp order.
 */
export function spend(spent: Spent | undefined, rule: RateLimitRule, now: number, n: number, stampAt = now): Spent {
  const kept = (spent ?? []).filter(([at]) => at + rule.perMs > now);
  const last = kept.at(-1);
  const stamp = Math.max(stampAt, last?.[0] ?? Number.NEGATIVE_INFINITY);
  if (last && last[0] === stamp) kept[kept.length - 1] = [stamp, last[1] + n];
  else kept.push([stamp, n]);
  return kept;
}

/** The most jobs of one group that may run at once under `name`'s definition, or the group's own setting. */
export function groupLimit(group: string, name: string, limits: ReadonlyMap<string, NameLimits>, overrides: ReadonlyMap<string, number>): number {
  return overrides.get(group) ?? limits.get(name)?.groupConcurrency ?? Number.POSITIVE_INFINITY;
}

/** How many more ungrouped jobs of `name` a claim could take: global concurrency and the name's own bucket. */
export function nameAllowance(name: string, input: Pick<SelectInput<Candidate>, 'limits' | 'running' | 'buckets' | 'now'>): number {
  const lim = input.limits.get(name);
  if (!lim) return Number.POSITIVE_INFINITY;
  let allow = Number.POSITIVE_INFINITY;
  if (lim.globalConcurrency !== undefined) {
    const running = input.running.reduce((sum, r) => (r.name === name ? sum + r.n : sum), 0);
    allow = Math.max(0, lim.globalConcurrency - running);
  }
  // Ungrouped jobs spend from the name's bucket, per-group buckets or not.
  if (lim.rateLimit) allow = Math.min(allow, tokens(input.buckets.get(bucketId({ kind: 'name', key: name })), lim.rateLimit, input.now).left);
  return allow;
}

interface Ranked<C> {
  job: C;
  /** 0 for an ungrouped job and each group's first head, 1 for its second, …: groups take turns. */
  round: number;
  /** Position of the group in the walk. */
  turn: number;
}

/** Claim order among the candidates: priority, then each group's turn, then due time and id. */
function byClaimOrder<C extends Candidate>(a: Ranked<C>, b: Ranked<C>): number {
  return b.job.priority - a.job.priority || a.round - b.round || a.job.run_at - b.job.run_at || a.turn - b.turn || a.job.id - b.job.id;
}

export function selectClaims<C extends Candidate>(input: SelectInput<C>): Selection<C> {
  const { limits, overrides, now } = input;
  const runningByName = new Map<string, number>();
  const runningByGroup = new Map<string, number>();
  for (const r of input.running) {
    runningByName.set(r.name, (runningByName.get(r.name) ?? 0) + r.n);
    if (r.group_key !== null) runningByGroup.set(r.group_key, (runningByGroup.get(r.group_key) ?? 0) + r.n);
  }
  const ranked: Array<Ranked<C>> = input.ungrouped.map((job) => ({ job, round: 0, turn: -1 }));
  input.groups.forEach((g, turn) => {
    g.heads.forEach((job, round) => {
      ranked.push({ job, round, turn });
    });
  });
  ranked.sort(byClaimOrder);

  const left = new Map<string, number>(); // tokens left per bucket
  const returns = new Map<string, number>(); // when each bucket's next token comes back
  /** Per bucket: the tokens this claim spends. */
  const logs = new Map<string, { ref: BucketRef; rule: RateLimitRule; n: number }>();
  const takenByName = new Map<string, number>();
  const takenByGroup = new Map<string, number>();
  const take: C[] = [];
  const rated = new Set<number>();
  let blockedByRunning = false;
  let nextToken: number | null = null;
  let lastTurn = -1;

  for (const { job, turn } of ranked) {
    if (take.length >= input.limit) break;
    const lim = limits.get(job.name);
    const group = job.group_key ?? null;
    if (lim?.globalConcurrency !== undefined && (runningByName.get(job.name) ?? 0) + (takenByName.get(job.name) ?? 0) >= lim.globalConcurrency) {
      blockedByRunning = true;
      continue;
    }
    if (group !== null && (runningByGroup.get(group) ?? 0) + (takenByGroup.get(group) ?? 0) >= groupLimit(group, job.name, limits, overrides)) {
      blockedByRunning = true;
      continue;
    }
    const ref = bucketOf(job.name, group, lim?.rateLimit);
    if (ref) {
      // Idle workers take the claim's jobs in claim order: the first `startNow`
      // start at once, whatever their name; a rate-limited job further back
      // would start after the jobs ahead of it, long after its token's stamp.
      if (!input.ahead && take.length >= input.startNow) {
        blockedByRunning = true;
        continue;
      }
      const id = bucketId(ref);
      const rule = lim!.rateLimit!;
      if (!left.has(id)) {
        const t = tokens(input.buckets.get(id), rule, now);
        left.set(id, t.left);
        // A bucket this claim empties gets its first token back from its oldest spend, or from this claim's.
        returns.set(id, t.nextAt ?? now + rule.perMs);
      }
      if (left.get(id)! <= 0) {
        nextToken = nextToken === null ? returns.get(id)! : Math.min(nextToken, returns.get(id)!);
        continue;
      }
      left.set(id, left.get(id)! - 1);
      // Stamped at the latest start the claimer allows, whether an idle worker or the buffer takes it.
      const log = logs.get(id) ?? { ref, rule, n: 0 };
      log.n++;
      rated.add(job.id);
      logs.set(id, log);
    }
    take.push(job);
    takenByName.set(job.name, (takenByName.get(job.name) ?? 0) + 1);
    if (group !== null) takenByGroup.set(group, (takenByGroup.get(group) ?? 0) + 1);
    if (turn > lastTurn) lastTurn = turn;
  }

  const spent = [...logs.values()].map(({ ref, rule, n }) => ({ ...ref, spent: spend(input.buckets.get(bucketId(ref)), rule, now, n, input.stampAt) }));
  const short = take.length < input.limit;
  const pauseEnds = input.pauseEnds ?? null;
  const until = nextToken === null ? pauseEnds : pauseEnds === null ? nextToken : Math.min(nextToken, pauseEnds);
  const heldBack = short && (blockedByRunning || until !== null) ? { until, ...(nextToken !== null ? { tokensOut: true } : {}) } : undefined;
  return { take, spent, lastGroup: lastTurn >= 0 ? input.groups[lastTurn]!.key : undefined, heldBack, rated };
}
