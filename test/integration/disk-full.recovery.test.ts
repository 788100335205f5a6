/**
 * A full disk. The write that does not fit fails with LJ_ERR_DATABASE
 * (SQLITE_FULL), and its frames are left in the WAL: without more, the WAL
 * would stay at that high-water mark (SQLite reuses a WAL file, it does not
 * shrink it) and keep the disk full after space comes back. The store
 * checkpoints and truncates the WAL, at once or, when the pages still to copy
 * back need room the disk does not have yet, as soon as space comes back.
 *
 * Each test mounts its own 3 MiB tmpfs (mount needs root: the tests run as
 * root here and in CI) and fills it with a filler file and the queue's writes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmdirSync, statfsSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createQueue, createVirtualClock, DatabaseError, defineJob, type Queue, type QueueOptions } from '../../src/index.js';
import { FULL_RETRY_MAX_MS, FULL_RETRY_MIN_MS } from '../../src/store/sqlite/guard.js';
import { nextEvent, waitFor } from '../helpers/wait.js';

const KiB = 1024;
const TMPFS = '3m';

let dir = '';
const queues: Queue[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'litejobs-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    rmdirSync(dir);
    const stderr = String((err as { stderr?: Buffer }).stderr ?? '').trim();
    throw new Error(`cannot mount a ${TMPFS} tmpfs at ${dir}: the disk-full tests need root (mount -t tmpfs). ${stderr || (err as Error).message}`);
  }
});

afterEach(async () => {
  try {
    for (const q of queues.splice(0)) await q.close({ timeout: 1000 });
  } finally {
    try {
      execFileSync('umount', [dir], { stdio: 'pipe' });
    } catch {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' }); // something still has a file open: detach it anyway
    }
    rmdirSync(dir);
  }
});

const dbPath = () => join(dir, 'jobs.db');
const filler = () => join(dir, 'filler');
const free = () => {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
};
const walSize = () => (existsSync(`${dbPath()}-wal`) ? statSync(`${dbPath()}-wal`).size : 0);

/** A pino logger whose lines the test reads back. */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
  return { logger, warnings: () => lines.filter((l) => l.level === 40).map((l) => l.msg) };
}

function open(options: Partial<QueueOptions>): Queue {
  const q = createQueue({ path: dbPath(), ...options });
  queues.push(q);
  return q;
}

/**
 * A file whose schema is already in the database file and whose WAL is gone
 * (the last close checkpoints and removes it): what the WAL will hold is only
 * what the test writes.
 */
async function existingFile(): Promise<void> {
  const { logger } = capturingLogger();
  await createQueue({ path: dbPath(), logger }).close();
  expect(walSize()).toBe(0);
}

/** Fills the disk with the filler file but for `leave` bytes. */
function fillLeaving(leave: number): void {
  writeFileSync(filler(), Buffer.alloc(free() - leave, 1));
  expect(free()).toBeLessThanOrEqual(leave);
}

/** Gives `bytes` back to the disk: cuts them off the filler. */
function freeSome(bytes: number): void {
  truncateSync(filler(), statSync(filler()).size - bytes);
}

const big = (n: number, kib: number) => Array.from({ length: n }, (_, i) => ({ name: 'big', payload: { i, pad: 'x'.repeat(kib * KiB) } }));

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected the write to fail on the full disk');
    },
    (err: unknown) => err,
  );
}

function expectDiskFull(err: unknown): void {
  expect(err).toBeInstanceOf(DatabaseError);
  expect(err).toMatchObject({ code: 'LJ_ERR_DATABASE' });
  expect((err as Error).message).toMatch(/SQLITE_FULL/);
}

describe('a full disk', () => {
  it('the write that does not fit fails, the WAL is truncated at once, and after a little space is freed the queue enqueues and runs jobs again', async () => {
    await existingFile();
    const { logger, warnings } = capturingLogger();
    const q = open({ logger, jobs: [defineJob({ name: 'work', handler: async (p: { n: number }) => p.n * 2 })] });
    const LEFT = 700 * KiB;
    fillLeaving(LEFT);

    // Enqueues of large payloads, more than the disk has left: one transaction (all or nothing).
    const err = await rejection(q.enqueueMany(big(4, 256)));
    expectDiskFull(err);

    // The failed write had taken all the space left, in the WAL. It is given back:
    await waitFor(() => walSize() < 64 * KiB, 3000); // at once, or on the first retry if the checkpoint thread was busy
    expect(free()).toBeGreaterThan(LEFT - 64 * KiB);
    expect(warnings().some((m) => /disk full; checkpointed and truncated the WAL|after the full disk, checkpointed and truncated the WAL/.test(m))).toBe(true);
    expect(warnings().filter((m) => m.includes('disk full')).every((m) => m.includes(dbPath()))).toBe(true);
    expect((await q.stats()).total).toBe(0); // nothing of the failed write

    // Free a little space (far less than the WAL's high-water mark): the queue works again.
    freeSome(128 * KiB);
    const { id } = await q.enqueue('work', { n: 21 });
    const completed = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.start();
    await completed;
    expect(await q.getJob(id)).toMatchObject({ state: 'completed', result: 42 });
  });

  it('when the pages committed before still need room, the WAL is truncated as soon as a little space comes back', async () => {
    await existingFile();
    const { logger, warnings } = capturingLogger();
    // On a virtual clock the checkpoint thread never copies the WAL back by itself, and the retry runs when the test says.
    const clock = createVirtualClock(Date.now());
    const q = open({ logger, clock });
    const LEFT = 1024 * KiB;
    fillLeaving(LEFT);

    // A job committed in the WAL only: copying it back will extend the database file.
    const committed = await q.enqueue('medium', { pad: 'm'.repeat(64 * KiB) });
    const err = await rejection(q.enqueueMany(big(4, 256)));
    expectDiskFull(err);

    // No room to copy the committed job back, so no truncation: the WAL holds the disk.
    const highWater = walSize();
    expect(highWater).toBeGreaterThan(LEFT - 64 * KiB);
    expect(free()).toBeLessThan(64 * KiB);
    expect(warnings()).toEqual([expect.stringMatching(/disk full; the WAL could not be truncated yet \(.*(full|reader).*\), trying again/)]);
    await clock.advance(FULL_RETRY_MIN_MS); // a retry with the disk still full changes nothing
    expect(walSize()).toBe(highWater);

    // A little space, more than the committed job's pages but far less than the WAL holds.
    freeSome(128 * KiB);
    for (let i = 0; i < 10 && walSize() >= 64 * KiB; i++) await clock.advance(FULL_RETRY_MAX_MS);
    expect(walSize()).toBeLessThan(64 * KiB);
    expect(free()).toBeGreaterThan(highWater - 64 * KiB);
    expect(warnings().some((m) => /after the full disk, checkpointed and truncated the WAL/.test(m))).toBe(true);

    // Nothing committed was lost, nothing of the failed write is there, and the queue writes again.
    expect(await q.getJob(committed.id)).toMatchObject({ name: 'medium', state: 'pending' });
    expect((await q.stats()).total).toBe(1);
    const { id } = await q.enqueue('small', { n: 1 });
    expect(await q.getJob(id)).toMatchObject({ state: 'pending', payload: { n: 1 } });
  });
});
