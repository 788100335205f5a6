/**
 * Job logs through the queue: `ctx.log` still writes to the queue's pino
 * logger, and its lines (info and above; debug and trace when the logger's
 * level allows) are stored with the job, with the attempt of each, read back
 * by `queue.logs(id)`: across a retry, from a thread job, while the handler
 * still runs, with `logger: false`, capped per job, and gone with the job.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { defineJob, JobNotFoundError, ValidationError, type Queue } from '../../src/index.js';
import { JOB_LOG_LINES, LOG_TEXT_BYTES } from '../../src/engine/run/log-buffer.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { events, nextEvent } from '../helpers/wait.js';

const fx = useQueues();
const threadHandler = (name: string) => new URL(`../fixtures/thread-handlers/${name}.ts`, import.meta.url);

/** A pino logger at `level` whose JSON lines land in `out`. */
function capturing(level: string): { logger: pino.Logger; out: Array<Record<string, unknown>> } {
  const out: Array<Record<string, unknown>> = [];
  return { logger: pino({ level }, { write: (line: string) => void out.push(JSON.parse(line) as Record<string, unknown>) }), out };
}

async function runToEnd(q: Queue, id: number, state = 'completed'): Promise<void> {
  const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === state);
  await q.start();
  await done;
}

const summary = async (q: Queue, id: number) => (await q.logs(id)).lines.map((l) => [l.attempt, l.level, l.message, l.fields]);

describe('queue.logs', () => {
  it('stores each attempt\'s lines in order, with its attempt, and still writes them to the queue\'s logger', async () => {
    const { logger, out } = capturing('info');
    const job = defineJob({
      name: 'export',
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 0 } },
      handler: async (_p, ctx) => {
        ctx.log.info({ table: 'users' }, 'export started');
        ctx.log.child({ part: 2 }).warn('slow page %d of %d', 2, 9);
        ctx.log.debug('not kept at level info');
        if (ctx.attempt === 1) {
          ctx.log.error(new Error('disk busy'));
          throw new Error('disk busy');
        }
        ctx.log.info({ msg: 'from the object', rows: 12 });
        return 'ok';
      },
    });
    const q = fx.open({ logger, jobs: [job] });
    const { id } = await q.enqueue('export', null);
    await runToEnd(q, id);

    const { lines, dropped, next } = await q.logs(id);
    expect([dropped, next]).toEqual([0, null]);
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(lines.map((l) => [l.attempt, l.level, l.message])).toEqual([
      [1, 'info', 'export started'],
      [1, 'warn', 'slow page 2 of 9'],
      [1, 'error', 'disk busy'],
      [2, 'info', 'export started'],
      [2, 'warn', 'slow page 2 of 9'],
      [2, 'info', 'from the object'],
    ]);
    expect(lines[0]!.fields).toEqual({ table: 'users' });
    expect(lines[1]!.fields).toEqual({ part: 2 });
    expect(lines[2]!.fields).toMatchObject({ err: { type: 'Error', message: 'disk busy', stack: expect.stringContaining('disk busy') } });
    expect(lines[5]!.fields).toEqual({ rows: 12 });
    const history = await q.history(id);
    const claims = history.filter((h) => h.to === 'processing').map((h) => h.at.getTime());
    expect(lines.every((l, i) => l.at.getTime() >= claims[l.attempt - 1]! && (i === 0 || l.at >= lines[i - 1]!.at))).toBe(true);

    // The queue's logger got the same lines, with the job's fields, as before (the queue's own lines name no worker).
    const written = out.filter((o) => o.jobId === id && o.workerId !== undefined);
    expect(written.map((o) => [o.attempt, o.msg])).toEqual(lines.map((l) => [l.attempt, l.message]));
    expect(written[0]).toMatchObject({ job: 'export', table: 'users', workerId: expect.any(String) });
  });

  it('keeps debug lines when the logger\'s level allows them (trace stays out at debug)', async () => {
    const { logger } = capturing('debug');
    const job = defineJob({
      name: 'j',
      handler: (_p, ctx) => {
        ctx.log.trace('too fine');
        ctx.log.debug({ k: 1 }, 'detail');
        ctx.log.fatal('worst');
      },
    });
    const q = fx.open({ logger, jobs: [job] });
    const { id } = await q.enqueue('j', null);
    await runToEnd(q, id);
    expect(await summary(q, id)).toEqual([
      [1, 'debug', 'detail', { k: 1 }],
      [1, 'fatal', 'worst', undefined],
    ]);
  });

  it('stores lines of a queue made with `logger: false` (info and above)', async () => {
    const job = defineJob({
      name: 'quiet',
      handler: (_p, { log }) => {
        log.debug('never');
        log.info('kept anyway');
        log.child({ a: 1 }).child({ b: 2 }).error({ c: 3 }, 'nested');
      },
    });
    const q = fx.open({ logger: false, jobs: [job] });
    const { id } = await q.enqueue('quiet', null);
    await runToEnd(q, id);
    expect(await summary(q, id)).toEqual([
      [1, 'info', 'kept anyway', undefined],
      [1, 'error', 'nested', { a: 1, b: 2, c: 3 }],
    ]);
  });

  it('stores what cannot be stored as given: a NUL in a message, an error that is its own cause, an object whose getter throws', async () => {
    const selfCaused = new Error('loops');
    (selfCaused as { cause?: unknown }).cause = selfCaused;
    const job = defineJob({
      name: 'odd',
      handler: (_p, { log }) => {
        log.info('has a \u0000 NUL');
        log.warn({ err: selfCaused }, 'own cause');
        log.info({ get secret(): string { throw new Error('no reading me'); } }, 'getter');
        log.info('after them');
      },
    });
    const q = fx.open({ logger: false, jobs: [job] });
    const { id } = await q.enqueue('odd', null);
    await runToEnd(q, id);
    const lines = (await q.logs(id)).lines;
    expect(lines.map((l) => l.message)).toEqual(['has a \uFFFD NUL', 'own cause', 'getter', 'after them']);
    // As pino's err serializer writes it to the log: the causes folded into the message, the loop cut short.
    expect(lines[1]!.fields).toMatchObject({ err: { type: 'Error', message: 'loops: loops: ...' } });
    expect(lines[2]!.fields).toEqual({ logError: 'the log object could not be read: no reading me' });
  });

  it('stores the fields as the queue\'s logger writes them: its redact paths and serializers apply', async () => {
    const out: Array<Record<string, unknown>> = [];
    const redacting = pino({ level: 'info', redact: ['password', 'card.number'] }, { write: (line: string) => void out.push(JSON.parse(line) as Record<string, unknown>) });
    const job = defineJob({
      name: 'signup',
      handler: (_p, { log }) => {
        log.info({ user: 'ada', password: 'hunter2', card: { number: '4111', exp: '12/30' } }, 'signed up');
      },
    });
    const q = fx.open({ logger: redacting, jobs: [job] });
    const { id } = await q.enqueue('signup', null);
    await runToEnd(q, id);
    expect(await summary(q, id)).toEqual([[1, 'info', 'signed up', { user: 'ada', password: '[Redacted]', card: { number: '[Redacted]', exp: '12/30' } }]]);
    expect(out.find((l) => l.msg === 'signed up')).toMatchObject({ password: '[Redacted]' });
  });

  it('stores the lines of a thread job', async () => {
    const q = fx.open({ jobs: [defineJob({ name: 'threaded', isolation: 'thread', module: threadHandler('logs') })] });
    const { id } = await q.enqueue('threaded', null);
    await runToEnd(q, id);
    expect(await summary(q, id)).toEqual([
      [1, 'info', 'read 3 rows', { rows: 3 }],
      [1, 'warn', 'slow', { part: 'b' }],
    ]);
  });

  it('keeps the newest lines of a job, says how many were dropped, cuts long messages, and pages', async () => {
    const total = JOB_LOG_LINES + 205;
    const job = defineJob({
      name: 'chatty',
      handler: (_p, ctx) => {
        for (let i = 1; i <= total; i++) ctx.log.info({ i }, `line ${i}`);
        ctx.log.warn('é'.repeat(LOG_TEXT_BYTES));
      },
    });
    const q = fx.open({ jobs: [job] });
    const { id } = await q.enqueue('chatty', null);
    await runToEnd(q, id);

    const all = await q.logs(id);
    expect(all.dropped).toBe(total + 1 - JOB_LOG_LINES);
    expect(all.lines).toHaveLength(JOB_LOG_LINES);
    expect(all.lines[0]).toMatchObject({ seq: all.dropped + 1, message: `line ${all.dropped + 1}`, fields: { i: all.dropped + 1 } });
    expect(all.next).toBe(all.lines.at(-1)!.seq);
    const long = all.lines.at(-1)!.message;
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(LOG_TEXT_BYTES);
    expect(long.endsWith('é…')).toBe(true);

    const first = await q.logs(id, { limit: 2 });
    expect(first.lines.map((l) => l.seq)).toEqual([all.dropped + 1, all.dropped + 2]);
    expect(first.next).toBe(all.dropped + 2);
    const rest = await q.logs(id, { after: all.lines.at(-3)!.seq });
    expect([rest.lines.length, rest.next]).toEqual([2, null]);
  });

  it('stores the lines logged so far at lease renewals, while the handler still runs', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const job = defineJob({
      name: 'long',
      handler: async (_p, ctx) => {
        ctx.log.info('halfway');
        await held;
        ctx.log.info('done');
      },
    });
    const q = fx.open({ lease: 200, jobs: [job] });
    const { id } = await q.enqueue('long', null);
    const running = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'processing');
    await q.start();
    await running;
    await expect.poll(async () => (await q.logs(id)).lines.map((l) => l.message), { timeout: 10_000 }).toEqual(['halfway']);
    expect((await q.getJob(id)).state).toBe('processing');
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    release();
    await done;
    expect((await q.logs(id)).lines.map((l) => [l.seq, l.message])).toEqual([[1, 'halfway'], [2, 'done']]);
  });

  it('deletes the lines with their job: retention 0, remove and clean', async () => {
    const job = defineJob({ name: 'j', handler: (_p, ctx) => ctx.log.info('hello') });
    const rows = () => fx.value<number>('SELECT count(*) AS n FROM job_logs');
    const q = fx.open({ retention: { completed: 0 }, jobs: [job, defineJob({ name: 'bad', retry: { attempts: 1 }, handler: (_p, ctx) => { ctx.log.info('failing'); throw new Error('x'); } })] });
    const { id } = await q.enqueue('j', null);
    await runToEnd(q, id);
    await expect(q.getJob(id)).rejects.toBeInstanceOf(JobNotFoundError);
    expect(await rows()).toBe(0);

    const dead = events(q.events$, (e) => e.to === 'dead', 2);
    const a = await q.enqueue('bad', 1);
    await q.enqueue('bad', 2);
    await dead;
    expect(await rows()).toBe(2);
    await q.remove(a.id);
    expect(await rows()).toBe(1);
    expect(await q.clean({ state: 'dead', olderThan: 0 })).toBe(1);
    expect(await rows()).toBe(0);
  });

  it('refuses an unknown job and bad options', async () => {
    const q = fx.open();
    const { id } = await q.enqueue('j', null);
    expect(await q.logs(id)).toEqual({ lines: [], dropped: 0, next: null });
    await expect(q.logs(id + 1)).rejects.toBeInstanceOf(JobNotFoundError);
    await expect(q.logs(id, { limit: 0 })).rejects.toBeInstanceOf(ValidationError);
    await expect(q.logs(id, { after: -1 })).rejects.toBeInstanceOf(ValidationError);
    await expect(q.logs(id, { page: 2 } as never)).rejects.toMatchObject({ code: 'LJ_ERR_UNKNOWN_OPTION' });
  });
});
