/**
 * `litejobs signal` in a process of its own, against a database whose job
 * another process runs: by id it wakes the job waiting on the topic, by key
 * (--by-key) it leaves the message in the mailbox of a job not yet waiting;
 * a finished or missing job exits 1 with its code, a bad id is a usage error.
 */
import { describe, expect, it } from 'vitest';
import { createQueue, defineJob, JobState } from '../../src/index.js';
import { CLI_TEST_TIMEOUT, json, runCli } from '../helpers/cli.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { waitFor } from '../helpers/wait.js';

describe('litejobs signal', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('wakes a waiting job by id, keeps a message for one by key, and refuses finished and missing jobs', async () => {
    const db = tempDbPath();
    const queue = createQueue({ path: db.path, logger: silentLogger, jobs: [defineJob({ name: 'order', handler: async (_: unknown, ctx) => ctx.waitFor('paid') })] });
    try {
      const first = await queue.enqueue('order', {}, { key: 'order:1' });
      await queue.start();
      await waitFor(async () => (await queue.getJob(first.id)).state === JobState.waitingMessage);
      const woke = await runCli(['signal', String(first.id), 'paid', '{"amount":12}', '--db', db.path]);
      expect(woke.code, woke.stderr).toBe(0);
      expect(woke.stdout).toBe(`job ${first.id} woke\n`);
      expect(await queue.result(first.id, { timeout: 20_000 })).toEqual({ amount: 12 });

      await queue.stop();
      const second = await queue.enqueue('order', {}, { key: 'order:2' });
      const kept = await runCli(['signal', '--by-key', 'order:2', 'paid', '--json', '--db', db.path]);
      expect(kept.code, kept.stderr).toBe(0);
      expect(json(kept)).toEqual({ id: second.id, woke: false });
      await queue.start();
      expect(await queue.result(second.id, { timeout: 20_000 })).toEqual({});

      const finished = await runCli(['signal', String(first.id), 'paid', '--db', db.path]);
      expect([finished.code, finished.stderr]).toEqual([1, `litejobs: error: LJ_ERR_JOB_FINISHED: job ${first.id} is completed: a finished job takes no messages\n`]);
      expect((await runCli(['signal', '99', 'paid', '--db', db.path])).stderr).toContain('LJ_ERR_JOB_NOT_FOUND');
      expect((await runCli(['signal', 'x', 'paid', '--db', db.path])).code).toBe(2);
    } finally {
      await queue.close();
      db.cleanup();
    }
  });
});
