/**
 * The dashboard's limits panel in Chromium: a limited name and the groups
 * with their running and pending jobs, followed as they change without a
 * reload; and a job's detail shows its group.
 */
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';
import { transitions$, waitFor } from '../helpers/wait.js';

const browser = useChromium();

describe('dashboard limits panel', () => {
  it('lists the limited name and each group with its running and pending jobs; the job detail shows the group', { timeout: CLI_TEST_TIMEOUT }, async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const sync = defineJob({ name: 'sync', groupConcurrency: 1, rateLimit: { max: 50, per: '1h' }, handler: () => held });
    const { queue, server, close } = await serveQueue({ concurrency: 4, jobs: [sync] });
    try {
      const first = await queue.enqueue('sync', { n: 1 }, { group: 'customer:1' });
      for (const group of ['customer:1', 'customer:1', 'customer:2']) await queue.enqueue('sync', {}, { group });
      const started = new Set<number>();
      transitions$(queue.events$).subscribe((e) => {
        if (e.to === 'processing') started.add(e.job.id);
      });
      await queue.start();
      await waitFor(() => started.size === 2);

      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });
      await page.goto(`${server.url}/`);
      const customer1 = page.locator('[data-testid=limit-groups] tr[data-group="customer:1"]');
      await customer1.waitFor({ timeout: 30_000 });
      const cells = (row: typeof customer1) => row.locator('td').allTextContents();
      expect(await cells(customer1)).toEqual(['customer:1', '2', '1', '–', '–']);
      expect(await cells(page.locator('tr[data-group="customer:2"]'))).toEqual(['customer:2', '0', '1', '–', '–']);
      expect(await page.locator('[data-testid=limit-groups] tr[data-group]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-group')))).toEqual(['customer:1', 'customer:2']);
      expect(await cells(page.locator('[data-testid=limit-names] tr[data-name="sync"]'))).toEqual(['sync', '1', '–', '50 per 1 h', '2', '48', '–']);

      // A group concurrency set elsewhere: the next refresh shows it and the second running job, without a reload.
      await queue.setGroupConcurrency('customer:1', 2);
      await customer1.locator('td[data-running]').getByText('2', { exact: true }).waitFor({ timeout: 30_000 });
      expect(await cells(customer1)).toEqual(['customer:1', '1', '2', '2', '–']);

      await page.goto(`${server.url}/#job=${first.id}`);
      await page.locator('[data-testid=job-detail] [data-testid=job-group]').waitFor({ timeout: 30_000 });
      expect(await page.locator('[data-testid=job-group]').textContent()).toBe('customer:1');
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      release();
      await close();
    }
  });
});
