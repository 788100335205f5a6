/**
 * A person's approval from the page: a job waiting for a message
 * (`ctx.waitFor`) shows a form for one on its topic in its detail; a message
 * that is not JSON is refused there, one that is wakes the job, which then
 * completes with it; the values the job published (`ctx.publish`) are shown.
 */
import { describe, expect, it } from 'vitest';
import { defineJob, JobState } from '../../src/index.js';
import { openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';
import { waitFor } from '../helpers/wait.js';

const browser = useChromium();

describe('messages from the page', () => {
  it('sends a waiting job its message and shows what it published', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const expense = defineJob({
      name: 'expense',
      handler: async (_: unknown, ctx) => {
        await ctx.publish('summary', { amount: 120, by: 'ada' });
        const decision = await ctx.waitFor<{ approved: boolean }>('decision');
        return { approved: decision?.approved ?? false };
      },
    });
    const { server, queue, close } = await serveQueue({ jobs: [expense] });
    try {
      const { id } = await queue.enqueue('expense', {});
      await queue.start();
      await waitFor(async () => (await queue.getJob(id)).state === JobState.waitingMessage);
      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });
      await page.goto(`${server.url}/#job=${id}`);
      const form = page.locator('[data-testid=job-message]');
      await form.waitFor();
      expect(await form.locator('h3').textContent()).toContain('decision');
      expect(await page.locator('[data-testid=job-published]').textContent()).toContain('"amount": 120');
      await form.locator('textarea').fill('{ "approved": tru');
      await form.getByRole('button', { name: 'Send message' }).click();
      await form.locator('.error').waitFor();
      expect(await queue.getJob(id)).toMatchObject({ state: JobState.waitingMessage });
      await form.locator('textarea').fill('{ "approved": true }');
      await form.getByRole('button', { name: 'Send message' }).click();
      expect(await queue.result(id, { timeout: 20_000 })).toEqual({ approved: true });
      await waitFor(async () => (await page.locator('[data-testid=job-message]').count()) === 0);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await close();
    }
  });
});
