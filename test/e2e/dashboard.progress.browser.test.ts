/**
 * The dashboard's job detail in Chromium follows a running job's progress
 * live, without a reload: a number as a bar, any other value as JSON.
 */
import { describe, expect, it } from 'vitest';
import { defineJob, type HandlerContext } from '../../src/index.js';
import { openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';
import { waitFor } from '../helpers/wait.js';

const browser = useChromium();

describe('dashboard job progress', () => {
  it('draws a number as a bar and any other value as JSON, as each update comes', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const gates: Array<() => void> = [];
    const gate = () => new Promise<void>((go) => gates.push(go));
    const render = defineJob({
      name: 'render',
      handler: async (_p: unknown, ctx: HandlerContext) => {
        await ctx.progress(40);
        await gate();
        await ctx.progress({ stage: 'encoding', frames: 120 });
        await gate();
      },
    });
    const { queue, server, close } = await serveQueue({ logger: false, jobs: [render] });
    try {
      const { id } = await queue.enqueue('render', null);
      await queue.start();
      await waitFor(() => gates.length === 1);

      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });
      await page.goto(`${server.url}/#job=${id}`);
      const bar = page.locator('[data-testid=job-detail] label.progress');
      await bar.waitFor({ timeout: 30_000 });
      expect(await bar.locator('span').textContent()).toBe('progress 40%');
      expect(await bar.locator('progress').getAttribute('value')).toBe('40');

      gates.shift()!();
      const value = page.locator('[data-testid=job-progress]');
      await value.waitFor({ timeout: 30_000 });
      expect(JSON.parse((await value.textContent()) ?? '')).toEqual({ stage: 'encoding', frames: 120 });
      expect(await bar.count()).toBe(0);
      expect(problems).toEqual([]);
      gates.shift()!();
      await context.close();
    } finally {
      await close();
    }
  });
});
