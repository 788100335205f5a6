/**
 * Concurrency groups on PostgreSQL, where claims of several processes race:
 * store instances with pools of their own (as processes on other hosts
 * would have) claim from one schema at once, and no group ever has more
 * jobs leased than its limit. And the walk over groups: a busy group holds
 * up none behind it, groups take turns, a group's own concurrency
 * overrides the definition's, and a claim says when it held jobs back.
 */
import { describe, expect, it } from 'vitest';
import type { ClaimResult, InsertResult, NameLimits, Store } from '../../src/store/store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { pgClient } from '../helpers/postgres.js';
import { job, move, NOW, usePgStores } from './fixture.js';

const pg = usePgStores();

const claim = (store: Store, limits: ReadonlyMap<string, NameLimits>, o: { limit?: number; owner?: string; now?: number; names?: string[] } = {}): Promise<ClaimResult> =>
  store.claim({ names: o.names ?? ['a'], limit: o.limit ?? 10, owner: o.owner ?? 'w1', leaseMs: 60_000, now: o.now ?? NOW, rule: CLAIM_RULE, limits });

const complete = (store: Store, j: { id: number; version: number; leaseToken: string }) => store.transition([move({ id: j.id, version: j.version, from: 'processing', token: j.leaseToken, to: 'completed' })]).then((r) => r.moved);

const groupsOf = (claimed: { jobs: ReadonlyArray<{ group?: string | null }> }) => claimed.jobs.map((j) => j.group ?? '-');

/**
 * Claimers on `stores`, three per store, claim and complete (after a random
 * pause) until every job is done. The count of leased jobs per `keyOf` is
 * taken up as a claim answers and down before a completion is sent, so it
 * never exceeds what the database holds leased: a count above the limit is
 * a limit the store broke.
 */
async function race(stores: Store[], limits: ReadonlyMap<string, NameLimits>, total: number, keyOf: (j: { group?: string | null; name: string }) => string) {
  const leased = new Map<string, number>();
  let most = 0;
  let heldBack = 0;
  let done = 0;
  const claimed = new Set<number>();
  const twice: number[] = [];
  const claimer = async (store: Store, owner: string) => {
    const finishing: Array<Promise<unknown>> = [];
    while (done < total) {
      const got = await claim(store, limits, { owner, limit: 1 + Math.floor(Math.random() * 4) });
      if (got.heldBack?.until === null) heldBack++;
      for (const j of got.jobs) {
        if (claimed.has(j.id)) twice.push(j.id);
        claimed.add(j.id);
        const key = keyOf(j);
        leased.set(key, (leased.get(key) ?? 0) + 1);
        most = Math.max(most, leased.get(key)!);
        finishing.push(
          (async () => {
            await new Promise((resolve) => setTimeout(resolve, Math.random() * 8));
            leased.set(key, leased.get(key)! - 1);
            expect(await complete(store, j)).toEqual([true]);
            done++;
          })(),
        );
      }
      if (got.jobs.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(finishing);
  };
  await Promise.all(stores.flatMap((store, s) => [0, 1, 2].map((c) => claimer(store, `s${s}c${c}`))));
  return { most, heldBack, twice, claimed: claimed.size };
}

describe('inserts', () => {
  it("every insert path stores the job's group: a batch, keys, unique keys, a caller's own transaction", async () => {
    const store = pg.open();
    const unique = (key: string) => ({ kind: 'unique' as const, key, span: 2, until: null });
    const batch = await store.insert([job({ group: 'b1' }), job(), job({ group: 'b2' })], NOW);
    const keyed = await store.insert([job({ key: 'k1', group: 'k' }), job({ key: 'k1', group: 'other' }), job({ key: 'k2' })], NOW);
    const uniq = await store.insert([job({ unique: unique('u'), group: 'u' }), job({ unique: unique('u'), group: 'other' })], NOW);
    const app = await pgClient();
    let via: InsertResult[];
    try {
      await app.query('BEGIN');
      via = await store.insertVia!(app, [job({ group: 'v' }), job({ key: 'k3', group: 'v' })], NOW);
      await app.query('COMMIT');
    } finally {
      await app.end();
    }
    const groupOf = async (r: InsertResult) => (await store.get(r.id))?.group;
    expect(await Promise.all([...batch, ...keyed, ...uniq, ...via].map(groupOf))).toEqual(['b1', null, 'b2', 'k', 'k', null, 'u', 'u', 'v', 'v']);
    expect((await store.list({ state: 'pending' })).map((j) => j.group ?? '-')).toEqual(['b1', '-', 'b2', 'k', '-', 'u', 'v', 'v']);
  });
});

it('groupCounts: pending and running jobs per group, most running then most pending first, at most the limit', async () => {
  const store = pg.open();
  await store.insert([...['x', 'x', 'x', 'y', 'z', 'z'].map((group) => job({ group })), job({ name: 'b' })], NOW);
  const { jobs: [running] } = await claim(store, new Map(), { limit: 1 });
  expect(running!.group).toBe('x');
  expect(await store.groupCounts(10)).toEqual([
    { group: 'x', pending: 2, running: 1 },
    { group: 'z', pending: 2, running: 0 },
    { group: 'y', pending: 1, running: 0 },
  ]);
  await complete(store, running!);
  expect(await store.groupCounts(2)).toEqual([
    { group: 'x', pending: 2, running: 0 },
    { group: 'z', pending: 2, running: 0 },
  ]);
});

describe('groups across processes', () => {
  it('no group ever has more jobs leased than groupConcurrency while four stores claim at once', async () => {
    const schema = pg.schema();
    const stores = Array.from({ length: 4 }, () => pg.open({ schema, poolSize: 3 }));
    const total = 240;
    // Six groups, and ungrouped jobs among them: the fast claim and the limited one race too.
    await stores[0]!.insert(Array.from({ length: total }, (_, i) => job({ group: i % 7 === 6 ? null : `g${i % 7}`, priority: i % 3 })), NOW);
    const limits = new Map([['a', { groupConcurrency: 2 }]]);
    const { most, heldBack, twice, claimed } = await race(stores, limits, total, (j) => j.group ?? `ungrouped ${Math.random()}`);
    expect(twice).toEqual([]);
    expect(claimed).toBe(total);
    expect(most).toBeLessThanOrEqual(2);
    // Groups were at their limit (else the race was not tested).
    expect(heldBack).toBeGreaterThan(0);
    expect((await stores[1]!.stats()).byState).toEqual({ completed: total });
  });

  it('a group of its own concurrency (setGroupConcurrency, from another process) overrides the definition, and null gives it back', async () => {
    const schema = pg.schema();
    const [a, b] = [pg.open({ schema }), pg.open({ schema })];
    await a.insert(Array.from({ length: 6 }, () => job({ group: 'g' })), NOW);
    const limits = new Map([['a', { groupConcurrency: 1 }]]);
    await b.setGroupConcurrency('g', 3, NOW);
    const first = await claim(a, limits);
    expect(first.jobs).toHaveLength(3);
    // The group is at its own limit now: the next claim says a running job holds its jobs back.
    const full = await claim(a, limits);
    expect(full.jobs).toHaveLength(0);
    expect(full.heldBack).toEqual({ until: null });
    await Promise.all(first.jobs.map((j) => complete(a, j)));
    await b.setGroupConcurrency('g', null, NOW);
    expect((await claim(a, limits)).jobs).toHaveLength(1);
    expect(await b.limits()).toEqual([{ kind: 'group', key: 'g', concurrency: null, spent: [], pausedUntil: null, updatedAt: NOW }]);
  });
});

describe('the walk over groups', () => {
  it('skips a busy group: its backlog holds up no group after it, and the claim says jobs were held back by a running one', async () => {
    const store = pg.open();
    const limits = new Map([['a', { groupConcurrency: 1 }]]);
    // The busy group sorts first and its backlog is due first, at a higher priority.
    await store.insert(Array.from({ length: 50 }, () => job({ group: 'a-busy', priority: 5 })), NOW);
    const { jobs: [running] } = await claim(store, limits, { limit: 1 });
    expect(running!.group).toBe('a-busy');
    await store.insert([job({ group: 'b' }), job({ group: 'c' }), job()], NOW);
    const next = await claim(store, limits);
    expect(groupsOf(next).sort()).toEqual(['-', 'b', 'c']);
    expect(next.heldBack).toEqual({ until: null });
    // Nothing else due: still held back (the busy group's 49), none taken.
    const none = await claim(store, limits);
    expect(none.jobs).toHaveLength(0);
    expect(none.heldBack).toEqual({ until: null });
    await complete(store, running!);
    expect(groupsOf(await claim(store, limits))).toEqual(['a-busy']);
  });

  it('goes round the groups from where the claimer stopped: one claim at a time, each group takes its turn', async () => {
    const schema = pg.schema();
    const [a, b] = [pg.open({ schema }), pg.open({ schema })];
    // Enqueued out of order, the last group's jobs first.
    for (const group of ['g4', 'g1', 'g3', 'g2']) await a.insert(Array.from({ length: 3 }, () => job({ group })), NOW);
    const turns: string[] = [];
    for (let i = 0; i < 6; i++) turns.push(...groupsOf(await claim(a, new Map(), { limit: 1 })));
    // Another store's claimer has a cursor of its own: it starts from the first group.
    turns.push(...groupsOf(await claim(b, new Map(), { limit: 1 })));
    for (let i = 0; i < 5; i++) turns.push(...groupsOf(await claim(a, new Map(), { limit: 1 })));
    expect(turns).toEqual(['g1', 'g2', 'g3', 'g4', 'g1', 'g2', 'g1', 'g3', 'g4', 'g2', 'g3', 'g4']);
  });

  it('a claim of several takes one job of each group before a second of any', async () => {
    const store = pg.open();
    for (const group of ['g1', 'g2', 'g3']) await store.insert(Array.from({ length: 4 }, () => job({ group })), NOW);
    expect(groupsOf(await claim(store, new Map(), { limit: 3 })).sort()).toEqual(['g1', 'g2', 'g3']);
    // Fewer groups than the claim wants: the groups found offer more.
    expect(groupsOf(await claim(store, new Map(), { limit: 9 })).sort()).toEqual(['g1', 'g1', 'g1', 'g2', 'g2', 'g2', 'g3', 'g3', 'g3']);
  });

  it('a paused group (pauseLimit) is skipped until the pause ends, and the claim says when that is', async () => {
    const schema = pg.schema();
    const [a, b] = [pg.open({ schema }), pg.open({ schema })];
    await a.insert([job({ group: 'p' }), job({ group: 'q' })], NOW);
    await b.pauseLimit('group', 'p', NOW + 300, NOW);
    const first = await claim(a, new Map());
    expect(groupsOf(first)).toEqual(['q']);
    expect(first.heldBack).toEqual({ until: NOW + 300 });
    expect(groupsOf(await claim(a, new Map(), { now: NOW + 300 }))).toEqual(['p']);
  });

  it('a claim that finds grouped jobs pending on its fast path claims them in the same call', async () => {
    const store = pg.open();
    await store.insert([job({ priority: 1 }), job({ group: 'g' })], NOW);
    // No limits on the name: the claim starts on the fast path, which leaves grouped jobs alone.
    expect(groupsOf(await claim(store, new Map()))).toEqual(['-', 'g']);
    await store.insert([job({ group: 'h' }), job()], NOW);
    expect(groupsOf(await claim(store, new Map())).sort()).toEqual(['-', 'h']);
  });
});
