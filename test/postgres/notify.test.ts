/**
 * Change notifications between store instances on one schema: a commit in
 * one reaches the other's watchChanges and externalChange, never its own; and
 * a listener whose connection breaks comes back and reports a change.
 */
import { expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { pgClient } from '../helpers/postgres.js';
import { claimOf, job, move, NOW, usePgStores } from './fixture.js';

const pg = usePgStores();

/** Counts a watch's calls; `reached(n)` resolves once it has been called n times. */
function counting(store: Store): { count: () => number; reached: (n: number) => Promise<void>; stop: () => void } {
  let n = 0;
  const waiting: Array<{ n: number; resolve: () => void }> = [];
  const stop = store.watchChanges!(() => {
    n++;
    for (const w of waiting.filter((w) => w.n <= n)) w.resolve();
  });
  const reached = (target: number) => (n >= target ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n: target, resolve })));
  return { count: () => n, reached, stop };
}

/**
 * A pause after the expected notices: a notice that should not have counted
 * was sent before them and arrives before them, so it would show by now. It
 * can only let a bug through (on a very slow machine), never fail a sound store.
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

/** Waits until the store's listener is connected: LISTEN shows in pg_stat_activity. */
async function listening(schema: string, count = 1): Promise<number[]> {
  const admin = await pgClient();
  try {
    for (;;) {
      const { rows } = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = 'litejobs listen' AND query = $1`, [`LISTEN "${schema}"`]);
      if (rows.length >= count) return rows.map((r) => r.pid);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await admin.end();
  }
}

// Notices arrive in commit order on one connection: once the watch has seen
// a later commit's, it has seen (or dropped) every earlier one.
it("another instance's commit reaches watchChanges and externalChange, once; the instance's own does not", async () => {
  const schema = pg.schema();
  const [a, b] = [pg.open({ schema }), pg.open({ schema })];
  await Promise.all([a.ping(), b.ping()]);
  expect(a.externalChange()).toBe(false); // starts the listener
  const watch = counting(a);
  await listening(schema);
  await a.insert([job()], NOW); // its own: no notice
  await b.insert([job({ name: 'b' })], NOW);
  await b.insert([job({ name: 'b', runAt: NOW + 60_000 })], NOW); // due later: other instances re-arm their timers
  await watch.reached(2);
  await settle();
  expect(watch.count()).toBe(2);
  expect(a.externalChange()).toBe(true);
  expect(a.externalChange()).toBe(false);
  // A move into a finished state and a pause give nobody work; lifting the pause does.
  const [claimed] = await claimOf(b, { names: ['b'] });
  await b.transition([move({ id: claimed!.id, version: claimed!.version, from: 'processing', token: claimed!.leaseToken, to: 'completed' })]);
  await b.setPaused('b', true, NOW);
  await b.setPaused('b', false, NOW);
  await watch.reached(3);
  await settle();
  expect(watch.count()).toBe(3);
  // A job back in pending (a retry) does too.
  await b.transition([move({ id: claimed!.id, version: claimed!.version + 1, from: 'completed', token: null, to: 'pending', event: 'job.retry' })]);
  await watch.reached(4);
  expect(a.externalChange()).toBe(true);
  watch.stop();
});

it('a broken listener reconnects, then reports a change since notices may have been lost', async () => {
  const schema = pg.schema();
  const store = pg.open({ schema });
  await store.ping();
  const watch = counting(store);
  const [pid] = await listening(schema);
  const admin = await pgClient();
  await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  await admin.end();
  await watch.reached(1);
  expect(store.externalChange()).toBe(true);
  // Listening again, on a new connection.
  const [again] = await listening(schema);
  expect(again).not.toBe(pid);
  watch.stop();
});
