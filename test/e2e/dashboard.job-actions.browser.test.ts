/**
 * The job actions on the page, in Chromium: a job's detail offers a button
 * for each event its machine accepts now (Run now, Run again, a custom
 * machine's job.approve) and Delete; the list retries and deletes a
 * selection. Each asks first, and the page shows the job as it then is.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { importJob } from '../fixtures/quarantine-handlers.js';
import { ARTIFACTS, openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';

const browser = useChromium();

const HOUR = 3_600_000;

/** Opens a job's detail and waits until it shows this state. */
async function openJob(page: Page, url: string, id: number, state: string): Promise<void> {
  await page.goto(`${url}/#job=${id}`);
  await page.locator(`[data-testid=job-detail] h2 .pill.s-${state}`).waitFor({ timeout: 30_000 });
}

async function confirm(page: Page): Promise<void> {
  await page.locator('[data-testid=confirm-ok]').click();
}

describe('dashboard job actions', () => {
  it('runs, approves, runs again and deletes a job from its detail; retries and deletes a selection from the list', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const { queue, server, path, close } = await serveQueue({ jobs: [importJob] });
    const raw = new Database(path);
    const set = (state: string, id: number) => raw.prepare('UPDATE jobs SET state = ?, version = version + 1, updated_at = ? WHERE id = ?').run(state, Date.now(), id);
    try {
      const [later, held, done, dead1, dead2] = await queue.enqueueMany([1, 2, 3, 4, 5].map((n) => ({ name: 'import', payload: { n }, options: { delay: HOUR } })));
      set('quarantined', held!.id);
      set('completed', done!.id);
      set('dead', dead1!.id);
      set('dead', dead2!.id);
      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });

      // A delayed job offers exactly what its machine accepts in pending, and Delete.
      await openJob(page, server.url, later!.id, 'pending');
      const actions = page.locator('[data-testid=job-actions] button');
      expect(await actions.evaluateAll((b) => b.map((x) => x.textContent))).toEqual(['Cancel', 'Run now', 'Delete']);
      await page.locator('[data-testid=job-detail]').screenshot({ path: join(ARTIFACTS, 'dashboard-1280-job-actions.png') });
      await page.locator('[data-event="job.promote"]').click();
      await confirm(page);
      await page.locator('[data-testid=timeline] code', { hasText: 'job.promote' }).waitFor({ timeout: 30_000 });
      expect((await queue.getJob(later!.id)).runAt.getTime()).toBeLessThanOrEqual(Date.now());

      // A custom machine's event, read off that machine.
      await openJob(page, server.url, held!.id, 'quarantined');
      await page.locator('[data-event="job.approve"]').click();
      await confirm(page);
      await page.locator('[data-testid=job-detail] h2 .pill.s-pending').waitFor({ timeout: 30_000 });

      await openJob(page, server.url, done!.id, 'completed');
      await page.locator('[data-event="job.rerun"]').click();
      await confirm(page);
      await page.locator('[data-testid=job-detail] h2 .pill.s-pending').waitFor({ timeout: 30_000 });
      expect((await queue.history(done!.id)).map((h) => h.event)).toContain('job.rerun');

      // Delete asks first: Cancel keeps the job, Delete removes it and closes the detail.
      await openJob(page, server.url, later!.id, 'pending');
      await page.locator('[data-testid=job-actions] [data-action=delete]').click();
      await page.locator('[data-testid=confirm-cancel]').click();
      expect((await queue.getJob(later!.id)).state).toBe('pending');
      await page.locator('[data-testid=job-actions] [data-action=delete]').click();
      await confirm(page);
      await page.locator('.panel.placeholder').waitFor({ timeout: 30_000 });
      await expect(queue.getJob(later!.id)).rejects.toMatchObject({ code: 'LJ_ERR_JOB_NOT_FOUND' });

      // The dead list: select both, retry them; then select one pending job and delete it.
      await page.goto(`${server.url}/`);
      // The quarantine machine's own chart, behind its tab: its job's lists.
      await page.locator('[role=tab][data-machine=import]').click();
      const chart = page.locator('svg:has([data-state="quarantined"])');
      await chart.locator('[data-state="dead"]').click();
      await page.locator('[data-testid=job-list] tr[data-job-id]').nth(1).waitFor({ timeout: 30_000 });
      await page.getByLabel('Select all shown').check();
      await page.locator('[data-action=retry-selected]').click();
      await confirm(page);
      await page.getByText('Retried 2').waitFor({ timeout: 30_000 });
      for (const id of [dead1!.id, dead2!.id]) expect((await queue.getJob(id)).state).toBe('pending');
      await chart.locator('[data-state="pending"]').click();
      await page.getByLabel(`Select job ${dead1!.id}`).check();
      await page.locator('[data-action=delete-selected]').click();
      await confirm(page);
      await page.getByText('Deleted 1').waitFor({ timeout: 30_000 });
      await expect(queue.getJob(dead1!.id)).rejects.toMatchObject({ code: 'LJ_ERR_JOB_NOT_FOUND' });
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      raw.close();
      await close();
    }
  });
});
