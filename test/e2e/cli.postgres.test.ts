/** The `litejobs` command on a PostgreSQL queue: `--db postgres://…?schema=…` (or LITEJOBS_DB), as on a file. */
import { describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT, runCli, startCli } from '../helpers/cli.js';
import { pgUrl, usePgSchema } from '../helpers/postgres.js';

const schema = usePgSchema();

describe('litejobs on PostgreSQL', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('enqueues, lists, shows, cancels and counts jobs in a schema of its own', async () => {
    const db = `${pgUrl()}?schema=${schema()}`;
    const first = await runCli(['enqueue', 'email', '{"to":"ada@example.com"}', '--key', 'welcome:ada', '--json', '--db', db]);
    expect(first.code, first.stderr).toBe(0);
    const { id } = JSON.parse(first.stdout) as { id: number };
    const again = await runCli(['enqueue', 'email', '{"to":"ada@example.com"}', '--key', 'welcome:ada', '--json'], { env: { LITEJOBS_DB: db } });
    expect(JSON.parse(again.stdout)).toMatchObject({ id, created: false });

    const jobs = JSON.parse((await runCli(['jobs', '--json', '--db', db])).stdout) as Array<{ id: number; name: string; state: string }>;
    expect(jobs.map((j) => [j.id, j.name, j.state])).toEqual([[id, 'email', 'pending']]);
    expect((await runCli(['cancel', String(id), '--db', db])).code).toBe(0);
    const job = JSON.parse((await runCli(['job', String(id), '--json', '--db', db])).stdout) as { state: string; history: Array<{ event: string }> };
    expect(job.state).toBe('cancelled');
    expect(job.history.map((h) => h.event)).toEqual(['job.enqueue', 'job.cancel']);
    const stats = JSON.parse((await runCli(['stats', '--json', '--db', db])).stdout) as { total: number; byState: Record<string, number> };
    expect(stats).toMatchObject({ total: 1, byState: { cancelled: 1 } });
  });

  it('serve never logs the database password', async () => {
    const url = new URL(pgUrl());
    url.password = 'pw-never-logged'; // trust auth: the server ignores it
    url.searchParams.set('schema', schema());
    const cli = startCli(['serve', '--port', '0', '--db', url.toString()]);
    await cli.waitForOutput(/litejobs serving on/);
    cli.proc.kill('SIGTERM');
    const end = await cli.done;
    expect(end.code, end.stderr).toBe(0);
    expect(end.stdout + end.stderr).not.toContain('pw-never-logged');
    expect(end.stdout).toContain(':***@');
  });

  it('refuses backup with the pg_dump recipe', async () => {
    const r = await runCli(['backup', '/tmp/never-written.db', '--db', `${pgUrl()}?schema=${schema()}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/pg_dump/);
  });
});
