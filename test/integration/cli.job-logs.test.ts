/** `litejobs job <id> --logs` through runCli() on the test's database: the lines a job's handler logged, as text and as JSON. */
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/program.js';
import { defineJob } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { nextEvent } from '../helpers/wait.js';

const fx = useQueues();

async function cli(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { stdout: { isTTY: false, write: (t: string) => out.push(t) }, stderr: { isTTY: false, write: (t: string) => err.push(t) }, onInterrupt: () => () => {} };
  const code = await runCli([...args, '--db', fx.dbArg()], io);
  return { code, out: out.join(''), err: err.join('') };
}

describe('litejobs job <id> --logs', () => {
  it('prints each line with its time, attempt, level, message and fields; --json gives them as JSON', async () => {
    const job = defineJob({
      name: 'report',
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 0 } },
      handler: (_p, ctx) => {
        ctx.log.info({ rows: 3 }, 'rendering');
        if (ctx.attempt === 1) throw new Error('font missing');
        ctx.log.warn('line one\nline two');
      },
    });
    const q = fx.open({ jobs: [job] });
    const { id } = await q.enqueue('report', null);
    const done = nextEvent(q.events$, (e) => e.job.id === id && e.to === 'completed');
    await q.start();
    await done;
    await q.stop();

    const text = await cli(['job', String(id), '--logs']);
    expect(text.code).toBe(0);
    const [head, header, ...rows] = text.out.trimEnd().split('\n');
    expect(head).toBe(`job ${id}: 3 log lines`);
    expect(header).toMatch(/^AT\s+ATTEMPT\s+LEVEL\s+MESSAGE$/);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z\s+1\s+INFO\s+rendering {2}\{"rows":3\}$/);
    expect(rows[1]).toMatch(/\s2\s+INFO\s+rendering {2}\{"rows":3\}$/);
    // A message's control characters are shown escaped: one line per log line.
    expect(rows[2]).toMatch(/\s2\s+WARN\s+line one\\x0aline two$/);

    const json = await cli(['job', String(id), '--logs', '--json']);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.out);
    expect(parsed).toEqual({ dropped: 0, lines: JSON.parse(JSON.stringify((await q.logs(id)).lines)) });
    expect(parsed.lines.map((l: { attempt: number; level: string }) => [l.attempt, l.level])).toEqual([[1, 'info'], [2, 'info'], [2, 'warn']]);
  });

  it('says when a job logged nothing, and fails for an unknown job', async () => {
    const q = fx.open();
    const { id } = await q.enqueue('quiet', null);
    expect(await cli(['job', String(id), '--logs'])).toMatchObject({ code: 0, out: `job ${id}: 0 log lines\n` });
    const missing = await cli(['job', String(id + 1), '--logs']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('LJ_ERR_JOB_NOT_FOUND');
  });
});
