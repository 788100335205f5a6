/**
 * The schedule routes: list with next run times, add or replace, remove; bad
 * input is refused with the engine's codes and stores nothing; a read-only
 * server lists but refuses changes.
 */
import { describe, expect, it } from 'vitest';
import { useServers } from '../helpers/http-server.js';

const serve = useServers();

describe('/v1/schedules', () => {
  it('lists what queue.schedule stored, with next run times; POST adds or replaces, DELETE removes', async () => {
    const s = await serve();
    expect(await s.call('GET', '/v1/schedules')).toEqual({ status: 200, body: { schedules: [] } });
    await s.queue.schedule('report', '0 6 * * 1', { tz: 'Europe/Berlin', payload: { weekly: true } });
    const listed = await s.call('GET', '/v1/schedules');
    expect(listed.status).toBe(200);
    expect(listed.body.schedules).toEqual([
      {
        id: 'report',
        name: 'report',
        cron: '0 6 * * 1',
        every: null,
        tz: 'Europe/Berlin',
        payload: { weekly: true },
        missed: 'one',
        limit: null,
        count: 0,
        startDate: null,
        endDate: null,
        immediately: false,
        lastRunAt: null,
        nextRunAt: expect.any(String),
      },
    ]);
    const next = new Date(listed.body.schedules[0].nextRunAt);
    // Monday 06:00 in Berlin: 04:00 or 05:00 UTC, within a week.
    expect(next.getUTCDay()).toBe(1);
    expect([4, 5]).toContain(next.getUTCHours());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(7 * 24 * 3_600_000);

    const added = await s.call('POST', '/v1/schedules', { body: { name: 'tick', cron: '*/30 * * * * *', missed: 'skip' } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ name: 'tick', cron: '*/30 * * * * *', tz: null, payload: null, missed: 'skip' });
    expect(new Date(added.body.nextRunAt).getUTCSeconds() % 30).toBe(0);
    const replaced = await s.call('POST', '/v1/schedules', { body: { name: 'tick', cron: '0 * * * *' } });
    expect(replaced.body).toMatchObject({ name: 'tick', cron: '0 * * * *', missed: 'one' });
    expect((await s.queue.schedules()).map((x) => x.name)).toEqual(['report', 'tick']);

    // A second schedule of the same job, by interval, under an id of its own.
    const often = await s.call('POST', '/v1/schedules', { body: { name: 'tick', id: 'tick-often', every: '5m', limit: 3, immediately: true, startDate: '2030-01-01T00:00:00Z' } });
    expect(often.status).toBe(201);
    expect(often.body).toMatchObject({ id: 'tick-often', name: 'tick', cron: null, every: 300_000, limit: 3, count: 0, immediately: true, startDate: '2030-01-01T00:00:00.000Z', nextRunAt: '2030-01-01T00:00:00.000Z' });
    expect((await s.queue.schedules()).map((x) => x.id)).toEqual(['report', 'tick', 'tick-often']);
    expect(await s.call('DELETE', '/v1/schedules/tick-often')).toEqual({ status: 200, body: { name: 'tick-often', removed: true } });
    // An id of any text the library takes is removed by its percent-encoded path.
    await s.queue.schedule('tick', { every: '1h' }, { id: 'tick / hourly' });
    expect((await s.call('DELETE', `/v1/schedules/${encodeURIComponent('tick / hourly')}`)).body).toEqual({ name: 'tick / hourly', removed: true });

    expect(await s.call('DELETE', '/v1/schedules/tick')).toEqual({ status: 200, body: { name: 'tick', removed: true } });
    const gone = await s.call('DELETE', '/v1/schedules/tick');
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('LJ_ERR_NOT_FOUND');
    expect((await s.queue.schedules()).map((x) => x.name)).toEqual(['report']);
  });

  it.each([
    [{ name: 'x', cron: '61 * * * *' }, 'LJ_ERR_BAD_CRON'],
    [{ name: 'x', cron: '* * * * *', tz: 'Nowhere/Land' }, 'LJ_ERR_BAD_CRON'],
    [{ name: 'x', cron: '* * * * *', missed: 'some' }, 'LJ_ERR_VALIDATION'],
    [{ name: 'x', cron: '* * * * *', every: 5000 }, 'LJ_ERR_VALIDATION'],
    [{ name: 'x', every: 500 }, 'LJ_ERR_VALIDATION'],
    [{ name: 'x', every: 'often' }, 'LJ_ERR_VALIDATION'],
    [{ name: 'x', every: '1m', tz: 'UTC' }, 'LJ_ERR_VALIDATION'],
    [{ name: 'x', every: '1m', limit: 0 }, 'LJ_ERR_VALIDATION'],
    [{ name: 'x', every: '1m', endDate: '2001-01-01' }, 'LJ_ERR_VALIDATION'],
    [{ name: 'x', every: '1m', startDate: 'someday' }, 'LJ_ERR_VALIDATION'],
    [{ name: 'x', every: '1m', id: '' }, 'LJ_ERR_VALIDATION'],
    [{ name: 'x', every: '1m', startDate: 'June 5' }, 'LJ_ERR_VALIDATION'],
    [{ name: 'x', every: '1h', endDate: Date.now() + 60_000 }, 'LJ_ERR_VALIDATION'],
    [{ name: 'x', cron: '* * * * *', repeat: 5 }, 'LJ_ERR_UNKNOWN_OPTION'],
    [{ name: 'x' }, 'LJ_ERR_VALIDATION'],
    [{ name: 'no spaces', cron: '* * * * *' }, 'LJ_ERR_VALIDATION'],
  ])('refuses %j with 400 %s and stores nothing', async (body, code) => {
    const s = await serve();
    const r = await s.call('POST', '/v1/schedules', { body });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(code);
    expect(await s.queue.schedules()).toEqual([]);
  });

  it('a read-only server lists schedules and refuses changes', async () => {
    const s = await serve({ server: { readOnly: true } });
    await s.queue.schedule('report', '0 6 * * *');
    expect((await s.call('GET', '/v1/schedules')).body.schedules).toHaveLength(1);
    expect((await s.call('POST', '/v1/schedules', { body: { name: 'x', cron: '* * * * *' } })).status).toBe(403);
    expect((await s.call('DELETE', '/v1/schedules/report')).status).toBe(403);
    expect(await s.queue.schedules()).toHaveLength(1);
  });
});
