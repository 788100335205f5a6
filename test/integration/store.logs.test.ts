/**
 * The stores' job logs (appendLogs, jobLogs): lines numbered per job in the
 * order they were appended, only the newest kept (the rest counted as
 * dropped), nothing written for a job that is gone, and every line deleted
 * with its job by each kind of delete (retention 0, retention by age,
 * remove, clean).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogAppend, NewJob, Store } from '../../src/store/store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { useQueues } from '../helpers/queue-fixture.js';

const fx = useQueues();
let store: Store | undefined;
// Registered after the fixture's: runs first, so the store closes before its database goes.
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const now = 1_000_000;
const job = (name: string): NewJob => ({ name, state: 'pending', payload: '{}', key: null, priority: 0, runAt: now, retry: null, timeout: null });
const lines = (id: number, attempt: number, messages: string[], skipped = 0): LogAppend => ({
  id,
  attempt,
  skipped,
  lines: messages.map((message, i) => ({ at: now + i, level: i % 2 ? 'warn' : 'info', message, fields: i === 0 ? '{"n":1}' : null })),
});
const messages = async (s: Store, id: number, after = 0, limit = 1000) => (await s.jobLogs(id, { after, limit })).lines.map((l) => [l.seq, l.attempt, l.message]);

/** Inserts one pending job per name: their ids. */
async function insert(s: Store, ...names: string[]): Promise<number[]> {
  return (await s.insert(names.map(job), now)).map((r) => r.id);
}

async function leased(s: Store, name = 'j') {
  const { id } = (await s.insert([job(name)], now))[0]!;
  const [claimed] = (await s.claim({ names: [name], limit: 1, owner: 'o', leaseMs: 60_000, now, rule: CLAIM_RULE })).jobs;
  return { id, token: claimed!.leaseToken, version: claimed!.version };
}

describe('store.appendLogs and store.jobLogs', () => {
  it('numbers each job\'s lines after its stored ones, batch after batch, and pages through them', async () => {
    store = fx.store();
    const [a, b] = (await insert(store, 'a', 'b')) as [number, number];
    await store.appendLogs([lines(a, 1, ['a1', 'a2']), lines(b, 1, ['b1'])], 1000);
    // The same job twice in one batch (two runs of it): the second's lines follow the first's.
    await store.appendLogs([lines(a, 2, ['a3']), lines(b, 2, ['b2', 'b3']), lines(a, 3, ['a4'])], 1000);
    expect(await messages(store, a)).toEqual([[1, 1, 'a1'], [2, 1, 'a2'], [3, 2, 'a3'], [4, 3, 'a4']]);
    expect(await messages(store, b)).toEqual([[1, 1, 'b1'], [2, 2, 'b2'], [3, 2, 'b3']]);
    const page = await store.jobLogs(a, { after: 1, limit: 2 });
    expect(page).toEqual({
      dropped: 0,
      lines: [
        { seq: 2, at: now + 1, attempt: 1, level: 'warn', message: 'a2', fields: null },
        { seq: 3, at: now, attempt: 2, level: 'info', message: 'a3', fields: '{"n":1}' },
      ],
    });
    expect(await store.jobLogs(a, { after: 4, limit: 10 })).toEqual({ lines: [], dropped: 0 });
    expect(await store.jobLogs(a + 100, { after: 0, limit: 10 })).toEqual({ lines: [], dropped: 0 });
    await store.appendLogs([], 1000);
    await store.appendLogs([lines(a, 1, [])], 1000);
    expect(await messages(store, a)).toHaveLength(4);
  });

  it('keeps only the newest `keep` lines of a job, counting the rest (and the lines a run skipped) as dropped', async () => {
    store = fx.store();
    const [id, other] = (await insert(store, 'a', 'b')) as [number, number];
    await store.appendLogs([lines(id, 1, ['1', '2', '3'])], 4);
    await store.appendLogs([lines(id, 1, ['4', '5', '6']), lines(other, 1, ['x'])], 4);
    expect(await messages(store, id)).toEqual([[3, 1, '3'], [4, 1, '4'], [5, 1, '5'], [6, 1, '6']]);
    expect((await store.jobLogs(id, { after: 0, limit: 10 })).dropped).toBe(2);
    // A run that dropped 5 lines itself before writing its last 4: those count too.
    await store.appendLogs([lines(id, 2, ['11', '12', '13', '14'], 5)], 4);
    expect(await messages(store, id)).toEqual([[12, 2, '11'], [13, 2, '12'], [14, 2, '13'], [15, 2, '14']]);
    expect((await store.jobLogs(id, { after: 0, limit: 10 })).dropped).toBe(11);
    // More lines in one batch than are kept: only the newest go in.
    await store.appendLogs([lines(id, 3, ['a', 'b']), lines(id, 3, ['c', 'd', 'e'])], 4);
    expect(await messages(store, id)).toEqual([[17, 3, 'b'], [18, 3, 'c'], [19, 3, 'd'], [20, 3, 'e']]);
    expect((await store.jobLogs(id, { after: 0, limit: 10 })).dropped).toBe(16);
    expect(await messages(store, other)).toEqual([[1, 1, 'x']]);
  });

  it('writes nothing for a job that is gone', async () => {
    store = fx.store();
    const [id] = (await insert(store, 'a')) as [number];
    await store.appendLogs([lines(id + 1, 1, ['orphan']), lines(id, 1, ['kept'])], 1000);
    expect(await messages(store, id)).toEqual([[1, 1, 'kept']]);
    expect(await fx.value('SELECT count(*) AS n FROM job_logs')).toBe(1);
  });

  it('deletes a job\'s lines with the job: at once (retention 0), by age, by remove and by clean', async () => {
    store = fx.store();
    const now0 = await leased(store, 'now');
    const later = await leased(store, 'later');
    const [removed, cleaned, stays] = (await insert(store, 'r', 'c', 's')) as [number, number, number];
    await store.appendLogs([now0, later].map((j) => lines(j.id, 1, ['one', 'two'])), 1000);
    await store.appendLogs([removed, cleaned, stays].map((id) => lines(id, 1, ['x'])), 1000);
    expect(await fx.value('SELECT count(*) AS n FROM job_logs')).toBe(7);

    const done = (j: { id: number; token: string; version: number }, purge: boolean) => ({
      id: j.id, version: j.version, from: 'processing', token: j.token, to: 'completed', event: 'job.complete', at: now + 2, attempts: 1, lastError: null, ctx: null, purge,
    });
    expect((await store.transition([done(now0, true), done(later, false)])).moved).toEqual([true, true]);
    expect(await messages(store, now0.id)).toEqual([]);
    expect(await messages(store, later.id)).toHaveLength(2);
    expect(await store.purgeFinished('completed', now + 3, 10)).toBe(1);
    expect(await messages(store, later.id)).toEqual([]);

    const removedJob = (await store.get(removed))!;
    expect(await store.removeJobs([{ id: removed, version: removedJob.version, state: removedJob.state }], now + 4)).toEqual([true]);
    expect(await store.cleanJobs({ state: 'pending', name: 'c', before: now + 5, limit: 10 }, now + 5)).toBe(1);
    expect(await messages(store, removed)).toEqual([]);
    expect(await messages(store, cleaned)).toEqual([]);
    expect(await messages(store, stays)).toEqual([[1, 1, 'x']]);
    expect(await fx.value('SELECT count(*) AS n FROM job_logs')).toBe(1);
  });

  it('deletes the lines when a purging batch names a job twice (request by request)', async () => {
    store = fx.store();
    const j = await leased(store);
    await store.appendLogs([lines(j.id, 1, ['a'])], 1000);
    const complete = { id: j.id, version: j.version, from: 'processing', token: j.token, to: 'completed', event: 'job.complete', at: now + 2, attempts: 1, lastError: null, ctx: null, purge: true };
    expect((await store.transition([complete, complete])).moved).toEqual([true, false]);
    expect(await fx.value('SELECT count(*) AS n FROM job_logs')).toBe(0);
  });
});
