/**
 * Two store instances with pools of their own, as two processes would have,
 * claim from one schema at once, in many small claims, until nothing is left:
 * every job is claimed exactly once.
 */
import { expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { claimOf, job, NOW, usePgStores } from './fixture.js';

const pg = usePgStores();
const JOBS = 2000;

it('no job is claimed twice by concurrent claimers in two pools', async () => {
  const schema = pg.schema();
  const stores = [pg.open({ schema, poolSize: 4 }), pg.open({ schema, poolSize: 4 })];
  await stores[0]!.insert(Array.from({ length: JOBS }, (_, i) => job({ priority: i % 3 })), NOW);
  const claimed = new Map<number, string[]>();
  /** One claimer: small claims, one after another, until an empty claim while nothing is pending. */
  const claimer = async (store: Store, owner: string) => {
    for (;;) {
      const got = await claimOf(store, { owner, limit: 1 + Math.floor(Math.random() * 5) });
      for (const j of got) claimed.set(j.id, [...(claimed.get(j.id) ?? []), owner]);
      if (got.length === 0 && ((await store.stats()).byState.pending ?? 0) === 0) return;
    }
  };
  // Three claimers per instance: claims of one pool race each other too.
  await Promise.all(stores.flatMap((store, s) => [0, 1, 2].map((c) => claimer(store, `s${s}c${c}`))));
  const twice = [...claimed].filter(([, owners]) => owners.length > 1);
  expect(twice).toEqual([]);
  expect(claimed.size).toBe(JOBS);
  expect(await stores[1]!.stats()).toMatchObject({ total: JOBS, byState: { processing: JOBS } });
  // Both instances took part (else the race was not tested).
  const owners = new Set([...claimed.values()].flat().map((o) => o.slice(0, 2)));
  expect(owners).toEqual(new Set(['s0', 's1']));
});
