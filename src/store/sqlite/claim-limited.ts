/**
 * The part of a SQLite claim that limits decide (claim-limits.ts has the
 * rules): run inside the claim's BEGIN IMMEDIATE transaction, so every
 * process sharing the file sees the same running jobs and buckets, and no two
 * claims can both take a group's last slot or a bucket's last token.
 *
 * Grouped jobs are found by a walk over the groups (claim-group-walk.sql):
 * one seek per group with a due job, from where this claimer's previous walk
 * stopped, round the groups and back, so every group gets its turn. A group
 * at its limit (its leased jobs counted on jobs_group_running) is stepped
 * over, so a busy group's backlog holds up none behind it and is never read
 * row by row. Each group offers its first job; when fewer
 * groups than the claim wants have jobs, the groups found offer more, up to
 * their free slots.
 */
import type Database from 'better-sqlite3';
import { bucketId, selectClaims, type RunningCount, type Selection, type Spent } from '../claim-limits.js';
import { groupBucketKeys, hasNameLimit, limitFacts, rateTerms, readLimit, widenGroups, widestLimit, type LimitFact } from '../limited-claim.js';
import type { ClaimRequest, NameLimits } from '../store.js';
import { namesStatement } from './names-statement.js';
import type { ReadyRow } from '../job-columns.js';
import { sql } from './sql.js';

export type LimitedClaim = (req: ClaimRequest, names: readonly string[], pauseEnds: number | null) => Selection<ReadyRow>;

export function createLimitedClaim(db: Database.Database): LimitedClaim {
  const s = {
    ready: namesStatement(db, sql('claim-ready')),
    walk: namesStatement(db, sql('claim-group-walk')),
    heads: namesStatement(db, sql('claim-group-heads')),

    namesRunning: namesStatement(db, sql('claim-running-names')),
    active: db.prepare(sql('limits-active')),
    buckets: db.prepare(sql('limits-buckets')),
    spend: db.prepare(sql('limits-spend')),
  };
  /** Where this claimer's walk over the groups goes on from ('' : the first group). */
  let cursor = '';

  return (req, names, pauseEnds) => {
    const { now, limit } = req;
    const startNow = req.startNow ?? limit;
    // Due times on the claimer's clock; tokens and pauses on the database's (ClaimRequest `rate`).
    const rate = rateTerms(req);
    const limits = req.limits ?? new Map<string, NameLimits>();
    const { overrides, paused, buckets, wakeAt } = limitFacts(s.active.all({ now: rate.now }) as LimitFact[], rate.now, pauseEnds);
    // Leased jobs: per name for names with a global concurrency; per group (name '') for the groups visited.
    const capped = names.filter((n) => limits.get(n)?.globalConcurrency !== undefined);
    const running: RunningCount[] = capped.length > 0 ? (s.namesRunning.all(capped, {}) as RunningCount[]) : [];
    const runningIn = new Map<string, number>();
    const facts = { limits, running, buckets, now: rate.now, ahead: rate.ahead };

    // Ungrouped: names without a limit in one read; each limited name on its
    // own, one more than it may take, to learn whether it holds jobs back.
    const plain = names.filter((n) => !hasNameLimit(limits.get(n)));
    const ungrouped: ReadyRow[] = plain.length > 0 ? (s.ready.all(plain, { now, limit }) as ReadyRow[]) : [];
    for (const name of names) {
      if (hasNameLimit(limits.get(name))) ungrouped.push(...(s.ready.all([name], { now, limit: readLimit(name, limit, startNow, facts) }) as ReadyRow[]));
    }

    // Grouped: a group's widest limit over the claimed names decides whether it is busy.
    const widest = (group: string) => widestLimit(group, names, limits, overrides);
    let skipped = 0;
    const groups: Array<{ key: string; heads: ReadyRow[] }> = [];
    const walk = (after: string, upto: string | null) => {
      while (groups.length < limit) {
        // A few steps more than groups wanted: some may be busy.
        const steps = limit - groups.length + 8;
        const rows = s.walk.all(names, { after, upto, now, steps }) as Array<ReadyRow & { running: number }>;
        for (const { running: n, ...head } of rows) {
          const group = head.group_key!;
          runningIn.set(group, n);
          if (n > 0) running.push({ name: '', group_key: group, n });
          if (paused.has(group) || n >= widest(group)) skipped++;
          else if (groups.length < limit) groups.push({ key: group, heads: [head] });
        }
        if (rows.length < steps) return; // the walk ran out of groups
        after = rows.at(-1)!.group_key!;
      }
    };
    walk(cursor, null);
    if (cursor !== '' && groups.length < limit) walk('', cursor);
    // Few groups with jobs: let them offer more, up to their free slots.
    const wanted = limit - Math.min(limit, ungrouped.length);
    for (const { key, more } of widenGroups(groups, wanted, limit, (g) => widest(g) - (runningIn.get(g) ?? 0))) {
      groups.find((g) => g.key === key)!.heads = s.heads.all(names, { group: key, now, limit: more }) as ReadyRow[];
    }
    const perGroup = groupBucketKeys(groups, limits);
    if (perGroup.length > 0) {
      for (const row of s.buckets.all({ keys: JSON.stringify(perGroup) }) as Array<{ key: string; spent: string | null }>) {
        if (row.spent !== null) buckets.set(bucketId({ kind: 'name-group', key: row.key }), JSON.parse(row.spent) as Spent);
      }
    }

    const selection = selectClaims({ limit, startNow, ahead: rate.ahead, stampAt: rate.stampAt, now: rate.now, limits, running, ungrouped, groups, overrides, buckets, pauseEnds: wakeAt });
    for (const b of selection.spent) s.spend.run({ kind: b.kind, key: b.key, spent: JSON.stringify(b.spent), now });
    if (selection.lastGroup !== undefined) cursor = selection.lastGroup;
    else if (groups.length === 0) cursor = '';
    // Short with busy groups stepped over, or groups that offered only their
    // free slots: their other jobs wait for running ones to end.
    if (!selection.heldBack && selection.take.length < limit && (skipped > 0 || groups.length > 0)) selection.heldBack = { until: wakeAt };
    return selection;
  };
}
