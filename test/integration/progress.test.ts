/**
 * ctx.progress(): a number or any JSON value, kept on the job and carried to
 * every watcher as a change (watch() in another connection, resumed from a
 * cursor too), but not a move: the job's history, version and counts leave
 * it out. What JSON cannot hold, or too much of it, is refused at the call.
 */
import { firstValueFrom, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createVirtualClock, defineJob, type JobChange } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';

const fx = useQueues();
const line = (c: JobChange) => `${c.from ?? '·'}→${c.to} ${c.event}${c.progress === undefined ? '' : ` ${JSON.stringify(c.progress)}`}`;

describe('ctx.progress', () => {
  it('reaches a watcher in another connection as changes between the claim and the finish, in order, and resumes from a cursor', async () => {
    const watcher = fx.open({ clock: createVirtualClock(Date.now()) });
    const seen = firstValueFrom(watcher.watch({ names: ['report'] }).pipe(take(6), toArray()));
    await watcher.ping();
    const worker = fx.open({
      jobs: [
        defineJob({
          name: 'report',
          handler: async (_: unknown, ctx) => {
            await ctx.progress(25);
            await ctx.progress({ done: 2, of: 4, stage: 'rendering' });
            await ctx.progress('almost');
            return 'ok';
          },
        }),
      ],
    });
    const { id } = await worker.enqueue('report', {});
    await worker.start();
    expect(await worker.result(id)).toBe('ok');
    const changes = await seen;
    expect(changes.map(line)).toEqual([
      '·→pending job.enqueue',
      'pending→processing job.claim',
      'processing→processing job.progress 25',
      'processing→processing job.progress {"done":2,"of":4,"stage":"rendering"}',
      'processing→processing job.progress "almost"',
      'processing→completed job.complete',
    ]);
    // A watch of states entered leaves progress updates out.
    const entered = await firstValueFrom(watcher.watch({ after: changes[0]!.cursor, states: ['processing', 'completed'] }).pipe(take(2), toArray()));
    expect(entered.map(line)).toEqual(['pending→processing job.claim', 'processing→completed job.complete']);
    // Resumed from the first progress change's cursor: exactly what followed it.
    const resumed = await firstValueFrom(watcher.watch({ after: changes[2]!.cursor }).pipe(take(3), toArray()));
    expect(resumed.map(line)).toEqual(changes.slice(3).map(line));

    // Kept on the job, and not a move: the history and the version count the claim and the completion only.
    const job = await watcher.getJob(id);
    expect(job.progress).toBe('almost');
    expect(Number(await fx.value(`SELECT version FROM jobs WHERE id = ${id}`))).toBe(2);
    expect((await watcher.history(id)).map((h) => h.event)).toEqual(['job.enqueue', 'job.claim', 'job.complete']);
    await worker.stop();
  });

  it('refuses what JSON cannot hold, and over 8 KB of it, with LJ_ERR_VALIDATION, writing nothing', async () => {
    const refusals: Array<{ code?: string; message: string }> = [];
    const q = fx.open({
      jobs: [
        defineJob({
          name: 'bad',
          handler: async (_: unknown, ctx) => {
            for (const value of [Number.NaN, Number.POSITIVE_INFINITY, undefined, () => 1, 10n, 'x'.repeat(9000)]) {
              await ctx.progress(value).then(
                () => refusals.push({ message: 'accepted' }),
                (err: { code?: string; message: string }) => refusals.push({ code: err.code, message: err.message }),
              );
            }
            await ctx.progress([1, 'two', { three: null }]);
          },
        }),
      ],
    });
    const { id } = await q.enqueue('bad', {});
    await q.start();
    await q.result(id);
    expect(refusals.map((r) => r.code)).toEqual(Array(6).fill('LJ_ERR_VALIDATION'));
    expect(refusals.at(-1)!.message).toContain('over the 8192');
    expect((await q.getJob(id)).progress).toEqual([1, 'two', { three: null }]);
    const rows = await fx.sql<{ data: string }>("SELECT data FROM job_history WHERE event = 'job.progress'");
    expect(rows.map((r) => r.data)).toEqual(['[1,"two",{"three":null}]']);
    await q.stop();
  });
});
