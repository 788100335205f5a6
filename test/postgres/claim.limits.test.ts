/**
 * A name's global concurrency and rate limit on PostgreSQL, while store
 * instances with pools of their own (as processes on other hosts would
 * have) claim from one schema at once: never more jobs leased than the
 * limit, never more claims in any window than the rate. And pauses set by
 * one process (pauseLimit, a handler's RateLimitedError) hold for every
 * claim of every other, the fast one included.
 */
import { describe, expect, it } from 'vitest';
import type { ClaimRequest, ClaimResult, NameLimits, Store } from '../../src/store/store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { job, move, NOW, usePgStores } from './fixture.js';

const pg = usePgStores();

const claim = (store: Store, o: { limits?: ReadonlyMap<string, NameLimits>; limit?: number; owner?: string; now?: number; names?: string[]; startNow?: number; startWithinMs?: number; rate?: ClaimRequest['rate'] } = {}): Promise<ClaimResult> =>
  store.claim({
    names: o.names ?? ['a'],
    limit: o.limit ?? 10,
    owner: o.owner ?? 'w1',
    leaseMs: 60_000,
    now: o.now ?? NOW,
    rule: CLAIM_RULE,
    ...(o.limits ? { limits: o.limits } : {}),
    ...(o.startNow === undefined ? {} : { startNow: o.startNow }),
    ...(o.startWithinMs === undefined ? {} : { startWithinMs: o.startWithinMs }),
    ...(o.rate === undefined ? {} : { rate: o.rate }),
  });

const complete = (store: Store, j: { id: number; version: number; leaseToken: string }) => store.transition([move({ id: j.id, version: j.version, from: 'processing', token: j.leaseToken, to: 'completed' })]).then((r) => r.moved);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('global concurrency across processes', () => {
  it('no more than globalConcurrency jobs of a name are leased at once while four stores claim; other names are not held', async () => {
    const schema = pg.schema();
    const stores = Array.from({ length: 4 }, () => pg.open({ schema, poolSize: 3 }));
    const total = 160;
    await stores[0]!.insert(Array.from({ length: total }, (_, i) => job({ name: i % 4 === 0 ? 'b' : 'a', group: i % 5 === 0 ? `g${i % 3}` : null })), NOW);
    const limits = new Map([['a', { globalConcurrency: 3 }]]);
    // Taken up as a claim answers, down before the completion is sent: never above what the database holds leased.
    let leasedA = 0;
    let most = 0;
    let mostB = 0;
    let heldBack = 0;
    let done = 0;
    const claimer = async (store: Store, owner: string) => {
      const finishing: Array<Promise<unknown>> = [];
      while (done < total) {
        const got = await claim(store, { limits, owner, names: ['a', 'b'], limit: 1 + Math.floor(Math.random() * 4) });
        leasedA += got.jobs.filter((j) => j.name === 'a').length;
        if (got.heldBack?.until === null) heldBack++;
        most = Math.max(most, leasedA);
        mostB = Math.max(mostB, got.jobs.filter((j) => j.name === 'b').length);
        for (const j of got.jobs) {
          finishing.push(
            (async () => {
              await sleep(Math.random() * 8);
              if (j.name === 'a') leasedA--;
              expect(await complete(store, j)).toEqual([true]);
              done++;
            })(),
          );
        }
        if (got.jobs.length === 0) await sleep(1);
      }
      await Promise.all(finishing);
    };
    await Promise.all(stores.flatMap((store, s) => [0, 1, 2].map((c) => claimer(store, `s${s}c${c}`))));
    expect(most).toBeLessThanOrEqual(3);
    // The limit was reached (else the race was not tested), and did not hold up name b.
    expect(heldBack).toBeGreaterThan(0);
    expect(mostB).toBeGreaterThan(1);
    expect((await stores[1]!.stats()).byState).toEqual({ completed: total });
  });

  it('a claim at the limit takes none of the name and says a running job holds them back', async () => {
    const store = pg.open();
    await store.insert([job(), job(), job()], NOW);
    const limits = new Map([['a', { globalConcurrency: 2 }]]);
    expect((await claim(store, { limits, limit: 1 })).jobs).toHaveLength(1);
    expect((await claim(store, { limits })).jobs).toHaveLength(1);
    const third = await claim(store, { limits });
    expect(third.jobs).toHaveLength(0);
    expect(third.heldBack).toEqual({ until: null });
  });
});

describe('rate limits across processes', () => {
  it('no window of perMs holds more than max claims while four stores claim at the same instants', async () => {
    const schema = pg.schema();
    const stores = Array.from({ length: 4 }, () => pg.open({ schema, poolSize: 3 }));
    const rule = { max: 5, perMs: 100, perGroup: false };
    const limits = new Map([['a', { rateLimit: rule }]]);
    const total = 60;
    await stores[0]!.insert(Array.from({ length: total }, () => job()), NOW);
    const claimedAt: number[] = [];
    let now = NOW;
    // Each round every claimer claims at the same virtual instant; then the clock moves on by a random step.
    while (claimedAt.length < total && now < NOW + 100_000) {
      const rounds = await Promise.all(stores.flatMap((store, s) => [0, 1].map((c) => claim(store, { limits, owner: `s${s}c${c}`, now, limit: 1 + Math.floor(Math.random() * 4) }))));
      for (const got of rounds) for (const _ of got.jobs) claimedAt.push(now);
      // A short claim says when the next token comes back.
      if (claimedAt.length < total) for (const got of rounds) if (got.jobs.length === 0) expect(got.heldBack?.until).toBeGreaterThan(now);
      now += 1 + Math.floor(Math.random() * 60);
    }
    expect(claimedAt).toHaveLength(total);
    claimedAt.sort((x, y) => x - y);
    let worst = 0;
    for (let i = 0; i < claimedAt.length; i++) {
      const inWindow = claimedAt.filter((t) => t >= claimedAt[i]! && t < claimedAt[i]! + rule.perMs).length;
      worst = Math.max(worst, inWindow);
    }
    expect(worst).toBe(rule.max);
    // The buckets' logs hold only what is still spent.
    const [bucket] = await stores[2]!.limits();
    expect(bucket).toMatchObject({ kind: 'name', key: 'a', concurrency: null, pausedUntil: null });
    expect(bucket!.spent.every(([at]) => at + rule.perMs > now - 50)).toBe(true);
  });

  it('a claim finding no token left says when the next comes back; each token comes back perMs after it was spent; startNow caps what it takes', async () => {
    const store = pg.open();
    await store.insert(Array.from({ length: 10 }, () => job()), NOW);
    const limits = new Map([['a', { rateLimit: { max: 3, perMs: 1000, perGroup: false } }]]);
    const first = await claim(store, { limits, startNow: 2 });
    expect(first.jobs).toHaveLength(2);
    expect(first.heldBack).toEqual({ until: null });
    expect((await claim(store, { limits, now: NOW + 400 })).jobs).toHaveLength(1);
    const dry = await claim(store, { limits, now: NOW + 999 });
    expect(dry.jobs).toHaveLength(0);
    expect(dry.heldBack).toEqual({ until: NOW + 1000, tokensOut: true });
    // The first two tokens come back at NOW + 1000, the third at NOW + 1400.
    expect((await claim(store, { limits, now: NOW + 1000 })).jobs).toHaveLength(2);
    expect((await claim(store, { limits, now: NOW + 1399 })).jobs).toHaveLength(0);
    expect((await claim(store, { limits, now: NOW + 1400 })).jobs).toHaveLength(1);
  });

  it('startWithinMs: jobs past startNow go to the buffer too, and every token is stamped at the start deadline', async () => {
    const store = pg.open();
    await store.insert(Array.from({ length: 10 }, () => job()), NOW);
    const limits = new Map([['a', { rateLimit: { max: 4, perMs: 1000, perGroup: false } }]]);
    const got = await claim(store, { limits, startNow: 1, startWithinMs: 40 });
    expect(got.jobs).toHaveLength(4);
    expect(got.jobs.map((j) => j.startBy)).toEqual([NOW + 40, NOW + 40, NOW + 40, NOW + 40]);
    expect((await store.limits()).map((l) => l.spent)).toEqual([[[NOW + 40, 4]]]);
    // Every token comes back a window after the deadline, the idle worker's too.
    expect((await claim(store, { limits, now: NOW + 1039, startWithinMs: 40 })).jobs).toHaveLength(0);
    expect((await claim(store, { limits, now: NOW + 1040 })).jobs).toHaveLength(4);
  });

  it('rate: tokens and stamps on the database\'s clock, due times on the claimer\'s', async () => {
    const store = pg.open();
    await store.insert(Array.from({ length: 4 }, () => job()), NOW);
    const limits = new Map([['a', { rateLimit: { max: 2, perMs: 1000, perGroup: false } }]]);
    // A claimer whose clock runs 5 s behind the database's: its jobs are due on its clock, its tokens stamped on the database's.
    const got = await claim(store, { limits, now: NOW, rate: { now: NOW + 5000, stampAt: NOW + 5040, ahead: false } });
    expect(got.jobs).toHaveLength(2);
    expect((await store.limits()).map((l) => l.spent)).toEqual([[[NOW + 5040, 2]]]);
    // A claimer on the database's clock a second later: the tokens are still out until 6,040.
    const dry = await claim(store, { limits, now: NOW + 1000, rate: { now: NOW + 6000, stampAt: NOW + 6040, ahead: false } });
    expect(dry.jobs).toHaveLength(0);
    expect(dry.heldBack).toEqual({ until: NOW + 6040, tokensOut: true });
  });

  it('perGroup: each group of the name spends from a bucket of its own, ungrouped jobs from the name', async () => {
    const store = pg.open();
    await store.insert([...['x', 'x', 'x', 'y', 'y', 'y'].map((group) => job({ group })), job(), job(), job()], NOW);
    const limits = new Map([['a', { rateLimit: { max: 2, perMs: 1000, perGroup: true } }]]);
    const got = await claim(store, { limits });
    expect(got.jobs.map((j) => j.group ?? '-').sort()).toEqual(['-', '-', 'x', 'x', 'y', 'y']);
    const dry = await claim(store, { limits, now: NOW + 1 });
    expect(dry.jobs).toHaveLength(0);
    expect(dry.heldBack).toEqual({ until: NOW + 1000, tokensOut: true });
    expect((await store.limits()).map((l) => [l.kind, l.key, l.spent])).toEqual([
      ['name', 'a', [[NOW, 2]]],
      ['name-group', '["a","x"]', [[NOW, 2]]],
      ['name-group', '["a","y"]', [[NOW, 2]]],
    ]);
  });
});

describe('pauses (pauseLimit) across processes', () => {
  it('a paused name is claimed by no claim of another store, fast or limited, until the pause ends; a later pause stays', async () => {
    const schema = pg.schema();
    const [a, b] = [pg.open({ schema }), pg.open({ schema })];
    await a.insert([job(), job({ group: 'g' }), job({ name: 'b' })], NOW);
    await b.pauseLimit('name', 'a', NOW + 500, NOW);
    // An earlier end does not shorten the pause in force.
    await b.pauseLimit('name', 'a', NOW + 200, NOW + 1);
    expect(await b.limits()).toEqual([{ kind: 'name', key: 'a', concurrency: null, spent: [], pausedUntil: NOW + 500, updatedAt: NOW + 1 }]);

    // No limits: the fast claim, which skips the name inside its statement.
    const fast = await claim(a, { names: ['a', 'b'] });
    expect(fast.jobs.map((j) => j.name)).toEqual(['b']);
    expect(fast.heldBack).toEqual({ until: NOW + 500 });
    // A limit on the name: the limited claim.
    const limited = await claim(a, { limits: new Map([['a', { globalConcurrency: 5 }]]), now: NOW + 499 });
    expect(limited.jobs).toHaveLength(0);
    expect(limited.heldBack).toEqual({ until: NOW + 500 });
    // A pause of the whole name: no heldBack from it once the name itself is paused by setPaused.
    await b.setPaused('a', true, NOW);
    expect((await claim(a, { now: NOW + 1 })).heldBack).toBeUndefined();
    await b.setPaused('a', false, NOW);

    const after = await claim(a, { now: NOW + 500 });
    expect(after.jobs.map((j) => j.group ?? '-').sort()).toEqual(['-', 'g']);
    expect(after.heldBack).toBeUndefined();
  });
});
