/** The job actions from the CLI (rm, clean, run-again, promote, send), through runCli() on a real file, as the library does them. */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { CliIO } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import { importJob } from '../fixtures/quarantine-handlers.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const fx = useQueues();
const HANDLERS = fileURLToPath(new URL('../fixtures/quarantine-handlers.ts', import.meta.url));

async function cli(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { stdout: { isTTY: false, write: (t: string) => out.push(t) }, stderr: { isTTY: false, write: (t: string) => err.push(t) }, onInterrupt: () => () => {} };
  const code = await runCli([...args, '--db', fx.dbArg()], io);
  return { code, out: out.join(''), err: err.join('') };
}

describe('litejobs rm, clean, run-again, promote, send', () => {
  it('rm deletes jobs and says which it left; clean deletes a state older than an age', async () => {
    const q = fx.open();
    const ids = (await q.enqueueMany([1, 2, 3].map((n) => ({ name: 'a', payload: { n } })))).map((r) => r.id);
    expect(await cli(['rm', String(ids[0])])).toMatchObject({ code: 0, out: `removed job ${ids[0]}\n` });
    const partial = await cli(['rm', String(ids[1]), '999999', '--json']);
    expect(partial.code).toBe(1);
    expect(JSON.parse(partial.out)).toMatchObject({ removed: [ids[1]], skipped: [{ id: 999_999, code: 'LJ_ERR_JOB_NOT_FOUND' }] });
    expect(await cli(['clean', '--state', 'pending', '--older-than', '7d'])).toMatchObject({ code: 0, out: 'removed 0 pending jobs\n' });
    expect(await cli(['clean', '--state', 'pending', '--older-than', '0ms', '--json'])).toMatchObject({ code: 0, out: '{\n  "removed": 1\n}\n' });
    expect((await cli(['clean', '--state', 'pending'])).code).toBe(2);
    expect((await cli(['clean', '--state', 'pending', '--older-than', 'later'])).code).toBe(2);
    expect(await cli(['clean', '--state', 'processing', '--older-than', '1h'])).toMatchObject({ code: 2 });
  });

  it('run-again, promote and send move jobs through their machine; send without an event lists the accepted ones', async () => {
    const q = fx.open({ jobs: [importJob] });
    const { id } = await q.enqueue('import', {}, { delay: 3_600_000 });
    expect((await cli(['send', String(id)])).out.split('\n').filter(Boolean).sort()).toEqual(['job.cancel', 'job.promote']);
    // The job's own machine decides once the CLI is given its definition.
    expect(await cli(['promote', String(id)])).toMatchObject({ code: 0, out: `job ${id} (import) is due now: pending\n` });
    await fx.sql("UPDATE jobs SET state = 'quarantined', version = version + 1 WHERE id = ?", [id]);
    expect((await cli(['send', String(id)])).out).not.toContain('job.approve');
    expect((await cli(['send', String(id), '--handlers', HANDLERS])).out.split('\n').filter(Boolean).sort()).toEqual(['job.approve', 'job.cancel']);
    expect(await cli(['send', String(id), 'job.approve', '--handlers', HANDLERS])).toMatchObject({ code: 0, out: `job ${id} (import) is pending\n` });
    expect(await cli(['send', String(id), 'job.approve', '--handlers', HANDLERS])).toMatchObject({ code: 1 });
    expect((await cli(['send', String(id), 'job.approve', '--data', '[1]'])).code).toBe(2);
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.start();
    await done;
    await q.stop();
    expect(await cli(['run-again', String(id)])).toMatchObject({ code: 0, out: `job ${id} (import) is pending again: pending\n` });
    expect(await cli(['run-again', String(id)])).toMatchObject({ code: 1 });
    expect((await q.history(id)).map((h) => h.event)).toContain('job.rerun');
  });

  it('jobs --newest lists newest first and pages towards older jobs', async () => {
    const q = fx.open();
    const ids = (await q.enqueueMany([1, 2, 3].map((n) => ({ name: 'a', payload: { n } })))).map((r) => r.id);
    const first = await cli(['jobs', '--newest', '--limit', '2']);
    expect(first.out.split('\n').filter((l) => /^\d/.test(l)).map((l) => Number(l.split(/\s+/)[0]))).toEqual([ids[2], ids[1]]);
    expect(first.out).toContain(`--newest --after ${ids[1]}`);
    const next = JSON.parse((await cli(['jobs', '--newest', '--after', String(ids[1]), '--json'])).out) as Array<{ id: number }>;
    expect(next.map((j) => j.id)).toEqual([ids[0]]);
  });

  it('update changes a pending job; usage errors for no change or both times', async () => {
    const q = fx.open();
    const { id } = await q.enqueue('a', { v: 1 }, { delay: 3_600_000 });
    const r = await cli(['update', String(id), '--priority', '5', '--payload', '{"v":2}', '--run-at', '2030-01-01T00:00:00Z']);
    expect(r).toMatchObject({ code: 0, out: `job ${id} (a) updated: priority 5, runs at 2030-01-01T00:00:00.000Z\n` });
    expect((await q.getJob(id)).payload).toEqual({ v: 2 });
    expect((await cli(['update', String(id)])).code).toBe(2);
    expect((await cli(['update', String(id), '--delay', '5m', '--run-at', '2030-01-01'])).code).toBe(2);
    await q.cancel(id);
    expect((await cli(['update', String(id), '--priority', '1'])).code).toBe(1);
  });
});

