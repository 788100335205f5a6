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

/** Records a watch's calls, with the sender each named; `seen(from)` resolves once a call from `from` came. */
function recording(store: Store): { from: Array<string | undefined>; seen: (from: string) => Promise<void>; reached: (n: number) => Promise<void>; stop: () => void } {
  const from: Array<string | undefined> = [];
  const waiting = new Set<() => void>();
  const stop = store.watchChanges!((sender) => {
    from.push(sender);
    for (const w of [...waiting]) w();
  });
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!done()) return;
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
    });
  return { from, seen: (sender) => until(() => from.includes(sender)), reached: (n) => until(() => from.length >= n), stop };
}

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

/**
 * Every notice sent on the schema's channel, in commit order, as a plain
 * connection of the test's own hears them; `mark()` sends one of its own and
 * resolves once it came back: every notice committed before it has come too.
 */
async function channel(schema: string): Promise<{ sent: string[]; mark: () => Promise<void>; end: () => Promise<void> }> {
  const client = await pgClient();
  const sent: string[] = [];
  const waiting = new Set<() => void>();
  client.on('notification', (m: { payload?: string }) => {
    sent.push(m.payload ?? '');
    for (const w of [...waiting]) w();
  });
  await client.query(`LISTEN "${schema}"`);
  let marks = 0;
  return {
    sent,
    async mark() {
      const payload = `mark-${++marks}`;
      const back = new Promise<void>((resolve) => {
        const check = () => {
          if (!sent.includes(payload)) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
      });
      await client.query('SELECT pg_notify($1, $2)', [schema, payload]);
      await back;
      sent.splice(sent.indexOf(payload), 1);
    },
    end: () => client.end(),
  };
}

// Notices arrive in commit order on each connection: once a connection has
// heard a later commit's, it has heard every earlier one. A mark (a notice of
// the test's own, sent after the actions) is that later commit: no sleep.
it("another instance's commit reaches watchChanges and externalChange, once; the instance's own does not", async () => {
  const schema = pg.schema();
  const [a, b] = [pg.open({ schema }), pg.open({ schema })];
  await Promise.all([a.ping(), b.ping()]);
  expect(a.externalChange()).toBe(false); // starts the listener
  const watch = recording(a);
  await listening(schema);
  const wire = await channel(schema);
  try {
    await a.insert([job()], NOW); // sent, but its own: a's watch leaves it out
    await wire.mark();
    const [ownId] = wire.sent.splice(0);
    await b.insert([job({ name: 'b' })], NOW);
    await b.insert([job({ name: 'b', runAt: NOW + 60_000 })], NOW); // due later: other instances re-arm their timers
    await wire.mark();
    const [bId] = wire.sent;
    expect(wire.sent).toEqual([bId, bId]);
    expect(bId).not.toBe(ownId);
    // a's watch: the marks and b's two, in commit order; never its own.
    await watch.seen('mark-2');
    expect(watch.from).toEqual(['mark-1', bId, bId, 'mark-2']);
    expect(a.externalChange()).toBe(true);
    expect(a.externalChange()).toBe(false);
    // A move into a finished state and a pause give nobody work: no claim loop hears of them. A finished
    // job is announced to those waiting for results only (watchFinished), and lifting the pause does wake.
    wire.sent.splice(0);
    let finished = 0;
    const unwatchFinished = a.watchFinished!(() => finished++);
    const [claimed] = await claimOf(b, { names: ['b'] });
    (await b.transition([move({ id: claimed!.id, version: claimed!.version, from: 'processing', token: claimed!.leaseToken, to: 'completed' })])).moved;
    await b.setPaused('b', true, NOW);
    await wire.mark();
    expect(wire.sent).toEqual([`${bId}.finished`]);
    await watch.seen('mark-3');
    expect(watch.from.slice(4)).toEqual(['mark-3']);
    expect(finished).toBe(1);
    unwatchFinished();
    expect(a.externalChange()).toBe(true); // the mark's, not the finished job's
    wire.sent.splice(0);
    await b.setPaused('b', false, NOW);
    // A job back in pending (a retry) does too.
    (await b.transition([move({ id: claimed!.id, version: claimed!.version + 1, from: 'completed', token: null, to: 'pending', event: 'job.retry' })])).moved;
    await wire.mark();
    expect(wire.sent).toEqual([bId, bId]);
    await watch.seen('mark-4');
    expect(watch.from.slice(4)).toEqual(['mark-3', bId, bId, 'mark-4']);
    expect(a.externalChange()).toBe(true);
  } finally {
    watch.stop();
    await wire.end();
  }
});

it('a broken listener reconnects, then reports a change since notices may have been lost', async () => {
  const schema = pg.schema();
  const store = pg.open({ schema });
  await store.ping();
  const watch = recording(store);
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
