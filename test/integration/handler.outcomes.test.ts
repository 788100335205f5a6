/**
 * What a handler hands back, however odd, ends its attempt the documented
 * way: a value JSON cannot hold fails it, an error whose message cannot be
 * read fails it with that error's name, and the context's calls after the
 * queue closed throw a typed error.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { DatabaseError, defineJob, QueueClosedError, type HandlerContext } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const fx = useQueues();

describe('handler outcomes', () => {
  it.each([
    ['a function', (): unknown => () => 1],
    ['a Symbol', (): unknown => Symbol('x')],
  ])('a handler returning %s fails the attempt as unrecoverable instead of completing', async (_, make) => {
    const q = fx.open({ jobs: [defineJob({ name: 'odd', handler: make })] });
    const { id } = await q.enqueue('odd', {});
    const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead');
    await q.start();
    await dead;
    const job = await q.getJob(id);
    expect(job).toMatchObject({ state: 'dead', attempts: 1, lastError: { code: 'LJ_ERR_UNRECOVERABLE' } });
    expect(job.lastError?.message).toContain('not JSON-serialisable');
  });

  it('an Error whose message getter throws fails the attempt at once, recorded under its own name', async () => {
    class Weird extends Error {
      override get message(): string {
        throw new Error('no message for you');
      }
    }
    Object.defineProperty(Weird.prototype, 'name', { value: 'WeirdError' });
    const q = fx.open({ jobs: [defineJob({ name: 'weird', retry: { attempts: 1 }, handler: () => { throw new Weird(); } })] });
    const { id } = await q.enqueue('weird', {});
    const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead', 5000);
    await q.start();
    await dead;
    expect((await q.getJob(id)).lastError).toMatchObject({ name: 'WeirdError', message: "(the error's message could not be read)" });
  });

  it("a store failure in an attempt is kept on the job as its code and a sentence; the detail (the connection, the paths) goes to the worker's log only", async () => {
    const detail = 'database postgres://app@db.internal:5432/jobs (schema tenant_7): relation "x" does not exist (42P01)';
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const q = fx.open({ logger, jobs: [defineJob({ name: 'db', retry: { attempts: 1 }, handler: () => { throw new DatabaseError('LJ_ERR_DATABASE', detail); } })] });
    const { id } = await q.enqueue('db', {});
    const dead = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'dead', 5000);
    await q.start();
    await dead;
    const job = await q.getJob(id);
    expect(job.lastError).toEqual({ name: 'DatabaseError', code: 'LJ_ERR_DATABASE', message: "the database failed this attempt (LJ_ERR_DATABASE); the worker's log has the detail" });
    expect(JSON.stringify(await q.history(id))).not.toContain('db.internal');
    expect(lines.some((line) => line.includes('db.internal') && line.includes('a database failure failed the attempt'))).toBe(true);
  });

  it('heartbeat() and progress() after the queue closed throw QueueClosedError, not a raw TypeError', async () => {
    let ctx: HandlerContext | undefined;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const q = fx.open({
      stuckAfter: 100,
      jobs: [defineJob({ name: 'slow', handler: async (_: unknown, c) => { ctx = c; await held; } })],
    });
    const { id } = await q.enqueue('slow', {});
    const started = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'processing');
    await q.start();
    await started;
    const closing = q.close({ timeout: 50 });
    // The handler ignores its signal for a moment; the queue gives up on it and closes the store.
    setTimeout(release, 5000).unref();
    await closing;
    await expect(ctx!.heartbeat()).rejects.toBeInstanceOf(QueueClosedError);
    await expect(ctx!.progress(50)).rejects.toMatchObject({ code: 'LJ_ERR_QUEUE_CLOSED' });
    release();
  });
});
