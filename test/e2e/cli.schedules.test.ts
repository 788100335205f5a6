/**
 * `litejobs schedules` in a process of its own lists the schedules another
 * process stored, with their next run times, as a table and as JSON.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueue } from '../../src/index.js';
import { CLI_TEST_TIMEOUT, json, runCli } from '../helpers/cli.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDir } from '../helpers/temp-db.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('litejobs schedules', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('lists the stored schedules with their next run times', async () => {
    const dir = tempDir();
    cleanup = dir.cleanup;
    const db = join(dir.dir, 'q.db');
    const queue = createQueue({ path: db, logger: silentLogger });
    await queue.schedule('nightly', '30 2 * * *', { tz: 'Europe/Berlin', payload: { full: true } });
    await queue.schedule('heartbeat', '*/15 * * * * *', { missed: 'skip' });
    await queue.close();

    await createQueue({ path: join(dir.dir, 'other.db'), logger: silentLogger }).close(); // read commands never make the file
    const empty = await runCli(['schedules', '--db', join(dir.dir, 'other.db')]);
    expect(empty).toMatchObject({ code: 0, stdout: 'no schedules\n' });

    const text = await runCli(['schedules', '--db', db]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+CRON\s+TZ\s+MISSED\s+NEXT RUN\s+LAST RUN$/);
    expect(lines[1]).toMatch(/^heartbeat\s+\*\/15 \* \* \* \* \*\s+local\s+skip\s+\d{4}-\d\d-\d\d \d\d:\d\d:(00|15|30|45)\.000Z \((in .+|now)\)\s+-$/);
    expect(lines[2]).toMatch(/^nightly\s+30 2 \* \* \*\s+Europe\/Berlin\s+one\s+\d{4}-\d\d-\d\d (00|01):30:00\.000Z \(in .+\)\s+-$/);

    const listed = json<Array<Record<string, unknown>>>(await runCli(['--db', db, 'schedules', '--json']));
    expect(listed.map((s) => s.name)).toEqual(['heartbeat', 'nightly']);
    expect(listed[1]).toMatchObject({ cron: '30 2 * * *', tz: 'Europe/Berlin', missed: 'one', payload: { full: true }, lastRunAt: null });
    const next = Date.parse(String(listed[1]!.nextRunAt));
    expect(next).toBeGreaterThan(Date.now() - 60_000);
    expect(next - Date.now()).toBeLessThanOrEqual(25 * 3_600_000);

    // A second schedule of a job, by interval, under an id of its own and with a limit: the table names ids and runs.
    const again = createQueue({ path: db, logger: silentLogger });
    await again.schedule('heartbeat', { every: '90s' }, { id: 'heartbeat-slow', limit: 5 });
    await again.close();
    const wide = (await runCli(['schedules', '--db', db])).stdout.trimEnd().split('\n');
    expect(wide[0]).toMatch(/^NAME\s+CRON\s+TZ\s+MISSED\s+NEXT RUN\s+LAST RUN\s+ID\s+RUNS$/);
    expect(wide[1]).toMatch(/^heartbeat\s+\*\/15 \* \* \* \* \*\s+local\s+skip\s+.+\s+-\s+heartbeat\s+0$/);
    expect(wide[2]).toMatch(/^heartbeat\s+every 1 m 30 s\s+-\s+one\s+.+\s+-\s+heartbeat-slow\s+0\/5$/);
  });
});
