/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core)
 * against `litejobs demo` as a person runs it: the statechart's counts reach
 * the demo's numbers, a dead job is retried from the page and is seen reaching
 * `completed` live, a job's path is replayed, a second process on the same
 * file (`serve --read-only`) shows a read-only page that refuses actions and
 * still sees the first process's jobs move. No console errors anywhere.
 * Screenshots go to test/e2e/artifacts/ (the ones in docs/guides/ come from
 * dashboard.layout.browser.test.ts).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-db.js';

/** The demo's first jobs: 4 samples and 12 deliveries; `import-orders` stays dead until retried. */
const COMPLETED = 15;

const browser = useChromium();

const count = (page: Page, state: string) => page.locator(`[data-state="${state}"] [data-count]`).first();

async function expectCount(page: Page, state: string, n: number, timeout = 30_000): Promise<void> {
  await count(page, state).filter({ hasText: new RegExp(`^\\s*${n}\\s*$`) }).waitFor({ timeout });
}

describe('dashboard in Chromium', () => {
  it(
    'counts, retry from the page, replay, read-only second process, both sizes, both themes, no console errors',
    { timeout: CLI_TEST_TIMEOUT },
    async () => {
      const dir = tempDir();
      try {
        const db = join(dir.dir, 'demo.db');
        // No cron schedule: its jobs would move the counts this test waits for.
        const demo = startCli(['demo', '--port', '0', '--seed', '38', '--rate', '0', '--no-schedule', '--db', db]);
        await demo.waitForOutput(/dashboard\s+http:\/\/\S+\/\n/, 60_000);
        const url = /dashboard\s+(http:\/\/\S+\/)\n/.exec(demo.stdout())![1]!;

        const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });
        await page.goto(url);
        await expectCount(page, 'completed', COMPLETED);
        await expectCount(page, 'dead', 1);
        expect((await page.locator('[data-testid=connection]').textContent())?.trim()).toBe('live');
        await page.screenshot({ path: join(ARTIFACTS, 'dashboard-1280-light.png') });

        // The dead job: list it, open it, retry it, and watch it complete without reloading.
        await page.locator('[data-state="dead"]').first().click();
        const row = page.locator('[data-testid=job-list] tr[data-job-id]');
        await row.first().waitFor();
        expect(await row.count()).toBe(1);
        const deadId = await row.first().getAttribute('data-job-id');
        await row.first().click();
        await page.locator('[data-testid=job-detail]').getByText('import-orders').first().waitFor();
        await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
        await page.screenshot({ path: join(ARTIFACTS, 'dashboard-1280-dead.png') });
        await page.locator('[data-testid=job-detail] [data-action=retry], [data-testid=job-list] [data-action=retry]').first().click();
        await page.locator('[data-testid=confirm-ok]').click();
        await expectCount(page, 'completed', COMPLETED + 1);
        await expectCount(page, 'dead', 0);

        // Its timeline now holds the retry; replay it step by step along the chart.
        await page.goto(`${url}#job=${deadId}`);
        const timeline = page.locator('[data-testid=timeline] [data-testid=timeline-transition]');
        await timeline.nth(4).waitFor();
        const steps = await timeline.count();
        // With the lines its handler logged, each after the transition it came in.
        await page.locator('[data-testid=timeline-log]', { hasText: 'upstream rejected the batch' }).first().waitFor();
        expect(steps).toBeGreaterThanOrEqual(6); // enqueue, claim, dead, retry, claim, complete
        // The replay opens on the job's current state; step back along its path, forward again, then play it through.
        const step = page.locator('[data-testid=replay-step]');
        const text = async () => ((await step.textContent()) ?? '').trim();
        expect(await text()).toBe(`${steps} / ${steps}: completed`);
        await page.locator('[data-testid=replay-prev]').click();
        expect(await text()).toBe(`${steps - 1} / ${steps}: processing`);
        await page.locator('[data-testid=replay-prev]').click();
        const earlier = await text();
        expect(earlier).toMatch(new RegExp(`^${steps - 2} / ${steps}: pending$`));
        await page.locator('[data-testid=replay-next]').click();
        expect(await text()).toBe(`${steps - 1} / ${steps}: processing`);
        // The step shown is marked on the statechart (drawn by the chart a render after the step's text).
        await page.locator('[data-state="processing"].marker').waitFor({ timeout: 5_000 });
        expect(await page.locator('[data-state="processing"].marker').count()).toBe(1);
        expect(await page.locator('g[data-state].marker').count()).toBe(1);
        await page.locator('[data-testid=replay-play]').click();
        await step.filter({ hasText: `${steps} / ${steps}: completed` }).waitFor({ timeout: 15_000 });
        await page.screenshot({ path: join(ARTIFACTS, 'dashboard-1280-replay.png') });

        // A job that completed after failed attempts lists its error as an earlier one, not as an alarm.
        await page.locator('[data-state="completed"]').first().click();
        const failMe = page.locator('[data-testid=job-list] tr[data-job-id]', { hasText: 'fail-me' });
        await failMe.first().waitFor();
        expect((await failMe.first().locator('[data-testid=earlier-error]').textContent())?.trim()).toBe('earlier: simulated failure on attempt 2');
        expect(await page.locator('[data-testid=job-list] tr[data-job-id] .err').count()).toBe(0);

        // Dark theme, then the phone size.
        await page.locator('[data-testid=theme-toggle]').click();
        expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { dataset: { theme?: string } } } }).document.documentElement.dataset.theme)).toBe('dark');
        await page.screenshot({ path: join(ARTIFACTS, 'dashboard-1280-dark.png') });
        expect(problems).toEqual([]);
        await context.close();

        const phone = await openPage(browser(), { width: 390, height: 844, colorScheme: 'dark' });
        await phone.page.goto(url);
        await expectCount(phone.page, 'completed', COMPLETED + 1);
        expect(await phone.page.evaluate(() => (globalThis as unknown as { document: { documentElement: { dataset: { theme?: string } } } }).document.documentElement.dataset.theme)).toBe('dark');
        // Nothing wider than the screen but the chart's own scroller.
        expect(await phone.page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await phone.page.screenshot({ path: join(ARTIFACTS, 'dashboard-390-dark.png'), fullPage: true });
        expect(phone.problems).toEqual([]);
        await phone.context.close();

        // A second process on the same file, read-only: it sees the demo's jobs move, and offers no action.
        const readOnly = startCli(['serve', '--read-only', '--port', '0', '--db', db]);
        await readOnly.waitForOutput(/serving on http:\/\/127\.0\.0\.1:\d+/, 60_000);
        const viewerUrl = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(readOnly.stdout())![1]!;
        const viewer = await openPage(browser(), { width: 1280, height: 800 });
        await viewer.page.goto(`${viewerUrl}/`);
        await viewer.page.locator('[data-testid=read-only]').waitFor();
        await expectCount(viewer.page, 'completed', COMPLETED + 1);
        await viewer.page.locator('[data-state="completed"]').first().click();
        await viewer.page.locator('[data-testid=job-list] tr[data-job-id]').first().waitFor();
        expect(await viewer.page.locator('[data-action]').count()).toBe(0);
        const refused = await fetch(`${viewerUrl}/v1/jobs/${deadId}/retry`, { method: 'POST', headers: { 'content-type': 'application/json' } });
        expect(refused.status).toBe(403);
        // A job enqueued through the demo's process reaches `completed` on the read-only process's page.
        const enqueued = await fetch(`${url}v1/jobs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'fail-me', payload: {} }) });
        expect(enqueued.status).toBe(201);
        await expectCount(viewer.page, 'completed', COMPLETED + 2);
        // Its two failures took `job.fail [canRetry]`, the second guarded edge to failed: the rate shows there, not on the first.
        const rateOn = (edge: string) => viewer.page.locator(`[data-edge="${edge}"] [data-rate]`).textContent();
        expect((await rateOn('processing:job.fail:failed#2'))?.trim()).toMatch(/\d/);
        expect((await rateOn('processing:job.fail:failed'))?.trim()).toBe('');
        // A pause made through the other process shows here within a tick.
        expect((await fetch(`${url}v1/names/generate-monthly-report/pause`, { method: 'POST', headers: { 'content-type': 'application/json' } })).status).toBe(200);
        await viewer.page.locator('option', { hasText: 'generate-monthly-report (paused)' }).waitFor({ state: 'attached' });
        await viewer.page.screenshot({ path: join(ARTIFACTS, 'dashboard-read-only.png') });
        expect(viewer.problems).toEqual([]);
        await viewer.context.close();

        readOnly.proc.kill('SIGINT');
        demo.proc.kill('SIGINT');
        expect((await readOnly.done).code).toBe(0);
        expect((await demo.done).code).toBe(0);
      } finally {
        dir.cleanup();
      }
    },
  );
});
