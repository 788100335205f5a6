/**
 * The dashboard of a server with a token, in Chromium: the page asks for the
 * token before it shows anything, refuses a wrong one, keeps the right one for
 * the tab, and its live stream pauses while the tab is hidden and catches up
 * (Last-Event-ID) when it is shown again.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-db.js';

const TOKEN = 'dashboard-token-0123456789';

const browser = useChromium();

async function enqueue(url: string, n: number): Promise<void> {
  const jobs = Array.from({ length: n }, (_, i) => ({ name: 'report', payload: { i } }));
  const r = await fetch(`${url}/v1/jobs/batch`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ jobs }) });
  expect(r.status).toBe(201);
}

/** Hides or shows the tab as a browser does when it is switched away from. */
async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((h) => {
    const doc = (globalThis as unknown as { document: { dispatchEvent(e: unknown): void } }).document;
    Object.defineProperty(doc, 'hidden', { value: h, configurable: true });
    Object.defineProperty(doc, 'visibilityState', { value: h ? 'hidden' : 'visible', configurable: true });
    doc.dispatchEvent(new (globalThis as unknown as { Event: new (type: string) => unknown }).Event('visibilitychange'));
  }, hidden);
}

const pendingCount = (page: Page, n: number) => page.locator('[data-state="pending"] [data-count]').filter({ hasText: new RegExp(`^\\s*${n}\\s*$`) }).first().waitFor({ timeout: 30_000 });

describe('dashboard with a token, in Chromium', () => {
  it('asks for the token, refuses a wrong one, keeps the right one; a hidden tab pauses and then catches up', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const dir = tempDir();
    try {
      // No workers' jobs defined: everything enqueued stays pending, so counts are exact.
      const server = startCli(['serve', '--port', '0', '--db', join(dir.dir, 'jobs.db')], { env: { LITEJOBS_TOKEN: TOKEN } });
      await server.waitForOutput(/serving on http:\/\/127\.0\.0\.1:\d+/, 60_000);
      const url = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.stdout())![1]!;
      await enqueue(url, 4);

      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });
      await page.goto(`${url}/`);
      await page.getByRole('heading', { name: 'This server needs its token' }).waitFor();
      expect(await page.locator('[data-state]').count()).toBe(0);

      await page.getByLabel('Token', { exact: true }).fill('not-the-token-at-all');
      await page.getByRole('button', { name: 'Use token' }).click();
      await page.getByRole('alert').waitFor();
      expect(await page.locator('[data-state]').count()).toBe(0);

      await page.getByLabel('Token', { exact: true }).fill(TOKEN);
      await page.getByRole('button', { name: 'Use token' }).click();
      await pendingCount(page, 4);
      expect(await page.locator('[data-testid=read-only]').count()).toBe(0);
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-token.png') });

      // The token stays with the tab: a reload goes straight to the chart.
      await page.reload();
      await pendingCount(page, 4);
      expect(await page.getByRole('heading', { name: 'This server needs its token' }).count()).toBe(0);

      // Hidden: the stream closes and the page says so; jobs enqueued meanwhile arrive once it is shown again.
      const connection = page.locator('[data-testid=connection]');
      await connection.filter({ hasText: 'live' }).waitFor();
      await setHidden(page, true);
      await connection.filter({ hasText: 'paused' }).waitFor();
      await enqueue(url, 3);
      await page.waitForTimeout(600); // a few ticks' time: none may reach a hidden tab
      await pendingCount(page, 4);
      await setHidden(page, false);
      await connection.filter({ hasText: 'live' }).waitFor();
      await pendingCount(page, 7);

      // Only the refusals the page had to meet: the first read without a token, and the wrong token's.
      for (const line of problems) expect(line).toMatch(/\b401\b/);
      expect(problems.length).toBeGreaterThan(0);
      await context.close();
      server.proc.kill('SIGINT');
      expect((await server.done).code).toBe(0);
    } finally {
      dir.cleanup();
    }
  });
});
