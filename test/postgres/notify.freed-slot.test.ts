/**
 * A job that leaves the claimed state frees a slot of its group, or of its
 * name's global concurrency, that claim loops of other processes (and this
 * one's) may wait for: on PostgreSQL the batch that records its end sends a
 * NOTIFY, as SQLite's commit wakes every process watching the file. Ends
 * of other jobs (completions are the bulk of all writes) send none.
 */
import { expect, it } from 'vitest';
import type { Client } from '../../src/store/postgres/driver.js';
import type { NameLimits, Store } from '../../src/store/store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { pgClient } from '../helpers/postgres.js';
import { claimOf, job, move, NOW, usePgStores } from './fixture.js';

const pg = usePgStores();

/** The payloads of the schema's channel, in commit order, heard on a connection of the test's own. */
async function listen(schema: string): Promise<{ client: Client; payloads: string[] }> {
  const client = await pgClient();
  const payloads: string[] = [];
  client.on('notification', (m) => payloads.push(m.payload ?? ''));
  await client.query(`LISTEN "${schema}"`);
  return { client, payloads };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const claim = async (store: Store, names: string[], limits: ReadonlyMap<string, NameLimits>) =>
  (await store.claim({ names, limit: 10, owner: 'w', leaseMs: 60_000, now: NOW, rule: CLAIM_RULE, limits })).jobs;

it('the end of a grouped job, or of a job of a name with a global concurrency, wakes claim loops; the end of any other job does not', async () => {
  const schema = pg.schema();
  const store = pg.open({ schema });
  await store.ping();
  const { client, payloads } = await listen(schema);
  try {
    await store.insert([job({ name: 'plain' }), job({ name: 'plain' }), job({ name: 'grouped', group: 'g' }), job({ name: 'global' })], NOW);
    const limits = new Map([['global', { globalConcurrency: 5 }]]);
    const [a, b] = await claim(store, ['plain'], limits);
    const [g] = await claim(store, ['grouped'], limits);
    const [c] = await claim(store, ['global'], limits);
    const end = (j: { id: number; version: number; leaseToken: string }, purge = false) => store.transition([move({ id: j.id, version: j.version, from: 'processing', token: j.leaseToken, to: 'completed', purge })]).then((r) => r.moved);
    const freed = () => payloads.filter((p) => p.endsWith('.freed'));
    // In commit order: two plain ends (a completion and a purge), then the grouped one, then the global one.
    expect(await end(a!)).toEqual([true]);
    expect(await end(b!, true)).toEqual([true]);
    expect(await end(g!)).toEqual([true]);
    await until(() => freed().length === 1);
    // Claim loops hear no plain end: the first notice for them after the insert's is the grouped job's.
    // (Every end is announced to result waiters on a notice of its own, `.finished`, which claim loops ignore.)
    const forClaimLoops = () => payloads.filter((p) => !p.endsWith('.finished'));
    expect(forClaimLoops().length).toBe(2);
    expect(payloads.filter((p) => p.endsWith('.finished')).length).toBe(3);
    expect(await end(c!, true)).toEqual([true]);
    await until(() => freed().length === 2);
    expect(forClaimLoops().length).toBe(3);
  } finally {
    await client.end();
  }
});

it('a move into a state claim loops wait for (back to pending, a retry delay) wakes them in its own statement, one request or a batch; a move that missed its compare-and-set does not', async () => {
  const schema = pg.schema();
  const store = pg.open({ schema });
  await store.ping();
  const { client, payloads } = await listen(schema);
  try {
    await store.insert([job(), job(), job(), job()], NOW);
    const [a, b, c, d] = await claimOf(store, { limit: 4 });
    await until(() => payloads.length === 1); // the insert's
    const forClaimLoops = () => payloads.filter((p) => !p.endsWith('.finished') && !p.endsWith('.freed'));
    const back = (j: { id: number; version: number; leaseToken: string }, to: string, version = j.version) =>
      move({ id: j.id, version, from: 'processing', token: j.leaseToken, to, event: to === 'pending' ? 'job.release' : 'job.fail', runAt: NOW + 100 });
    // A missed compare-and-set (an old version): nothing moved, nothing sent.
    expect((await store.transition([back(a!, 'pending', a!.version - 1)])).moved).toEqual([false]);
    // One request, back to pending: one notice.
    expect((await store.transition([back(a!, 'pending')])).moved).toEqual([true]);
    await until(() => forClaimLoops().length === 2);
    // A batch, a retry's delay among completions: one notice for the batch.
    const done = (j: typeof b) => move({ id: j!.id, version: j!.version, from: 'processing', token: j!.leaseToken, to: 'completed' });
    expect((await store.transition([done(b), back(c!, 'failed'), done(d)])).moved).toEqual([true, true, true]);
    await until(() => forClaimLoops().length === 3);
    // Completions alone wake no claim loop (their notice is for result waiters).
    await store.insert([job()], NOW);
    const [e] = await claimOf(store, { limit: 1 });
    await until(() => forClaimLoops().length === 4); // that insert's
    expect((await store.transition([done(e)])).moved).toEqual([true]);
    await until(() => payloads.filter((p) => p.endsWith('.finished')).length === 2);
    expect(forClaimLoops().length).toBe(4);
  } finally {
    await client.end();
  }
});
