/**
 * The dashboard's schedules panel in Chromium: the schedules stored in the
 * queue with their next run times, and nothing else on the page going wrong.
 */
import { describe, expect, it } from 'vitest';
import { openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';

const browser = useChromium();

describe('dashboard schedules panel', () => {
  it('lists each schedule with its expression, zone and next run', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const { queue, server, close } = await serveQueue();
    try {
      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });
      await page.goto(`${server.url}/`);
      await page.getByText('No cron schedules').waitFor({ timeout: 30_000 });

      await queue.schedule('nightly-report', '30 2 * * *', { tz: 'Europe/Berlin' });
      await queue.schedule('heartbeat', '*/10 * * * * *');
      // A second schedule of the same job, by interval, under an id of its own.
      await queue.schedule('heartbeat', { every: '5m' }, { id: 'heartbeat-slow', limit: 3 });
      await page.reload();
      const rows = page.locator('[data-testid=schedules] tr[data-schedule]');
      await rows.nth(2).waitFor({ timeout: 30_000 });
      expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-schedule')))).toEqual(['heartbeat', 'heartbeat-slow', 'nightly-report']);
      const slow = page.locator('tr[data-schedule="heartbeat-slow"]');
      expect(await slow.locator('code').textContent()).toBe('every 5 min');
      expect(await slow.locator('.schedule-id').textContent()).toBe(' heartbeat-slow');
      expect(await slow.locator('[data-schedule-runs]').textContent()).toBe(' 0 of 3 runs');
      const nightly = page.locator('tr[data-schedule="nightly-report"]');
      expect(await nightly.locator('code').textContent()).toBe('30 2 * * *');
      expect(await nightly.textContent()).toContain('Europe/Berlin');
      expect(await nightly.locator('td').nth(2).textContent()).toMatch(/^in \d+ (s|min|h)$/);
      const next = await nightly.locator('[data-next-run]').getAttribute('data-next-run');
      expect(new Date(next!).toISOString()).toBe((await queue.schedules()).find((s) => s.name === 'nightly-report')!.nextRunAt!.toISOString());
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await close();
    }
  });
});
