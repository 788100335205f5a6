/**
 * The dashboard's Workers panel in Chromium: a running queue shows as its
 * process (host, pid, uptime, "1 of 3 slots busy"), its running job as a
 * link that opens the job, its idle slots as a count; on a 390 px wide
 * screen nothing of it runs off the page. No console errors.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { internalsOf } from '../../src/queue-internals.js';
import { ARTIFACTS, openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';
import { nextEvent } from '../helpers/wait.js';

const browser = useChromium();

describe('dashboard workers panel', () => {
  it('shows the process with its host, pid, uptime and slots, and its running job as a link; fits 390 px', { timeout: CLI_TEST_TIMEOUT }, async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { queue, server, close } = await serveQueue({ concurrency: 3, prefetch: 0, jobs: [defineJob({ name: 'report-nightly-export', handler: () => held })] });
    try {
      const { id } = await queue.enqueue('report-nightly-export', {});
      const started = nextEvent(queue.events$, (e) => e.to === 'processing');
      await queue.start();
      await started;
      const owner = internalsOf(queue).ownerId;

      for (const width of [1280, 390]) {
        const { page, context, problems } = await openPage(browser(), { width, height: 800 });
        await page.goto(`${server.url}/`);
        const item = page.locator(`[data-testid=workers] li[data-owner="${owner}"]`);
        await item.locator('[data-testid=worker-host]').waitFor({ timeout: 30_000 });
        expect(await item.locator('[data-testid=worker-host]').textContent()).toBe(hostname());
        expect(await item.getByText(`pid ${process.pid}`, { exact: true }).count()).toBe(1);
        expect(await item.locator('[data-testid=worker-uptime]').textContent()).toMatch(/^up \d/);
        expect(await item.locator('[data-testid=worker-slots]').textContent()).toBe('1 of 3 slots busy');
        expect(await item.locator('[data-testid=worker-idle]').textContent()).toBe('2 idle');
        const link = item.locator(`a[href="#job=${id}"]`);
        expect(await link.textContent()).toBe(`report-nightly-export #${id}`);

        await item.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(ARTIFACTS, `dashboard-workers-${width}.png`) });
        // Nothing runs off the page: neither the document nor the process block is wider than the screen.
        const pageWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
        const box = (await item.boundingBox())!;
        expect(pageWidth).toBeLessThanOrEqual(width);
        expect(box.x + box.width).toBeLessThanOrEqual(width);

        await link.click();
        await page.locator('[data-testid=job-detail]').getByText('report-nightly-export').first().waitFor({ timeout: 30_000 });
        expect(problems).toEqual([]);
        await context.close();
      }
    } finally {
      release();
      await close();
    }
  });
});
