/**
 * The dashboard's layout at a desktop and a phone size, in both themes,
 * against `litejobs demo`: nothing wider than the screen outside a scroller
 * of its own, no text cut by its box, no text under 12 px — on the page as it
 * opens and with a job's detail open. Screenshots of each go to
 * test/e2e/artifacts/ (LITEJOBS_DOCS_SCREENSHOT=1 also refreshes the ones in
 * docs/guides/).
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT, startCli } from '../helpers/cli.js';
import { probeLayout } from '../helpers/layout-probe.js';
import { tempDir } from '../helpers/temp-db.js';

const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;
const THEMES = ['light', 'dark'] as const;
const DOCS = new URL('../../docs/guides/', import.meta.url);
/** The screenshots docs/guides/dashboard.md shows. */
const DOCS_SHOTS = new Set(['layout-1280-light.png', 'layout-1280-dark-job.png', 'layout-390-light.png', 'layout-390-dark-job.png']);

const browser = useChromium();

async function settled(page: Page): Promise<void> {
  await page.locator('[data-state="completed"] [data-count]').first().filter({ hasText: /^\s*[1-9]\d*\s*$/ }).waitFor({ timeout: 30_000 });
  await page.locator('[data-testid=chart-legend]').first().waitFor();
  // Fonts and the charts' first resize.
  await page.evaluate(() => (globalThis as unknown as { document: { fonts: { ready: Promise<unknown> } } }).document.fonts.ready);
  await page.waitForTimeout(300);
}

async function expectTidy(page: Page, what: string): Promise<void> {
  const report = await probeLayout(page);
  expect({ what, ...report }).toEqual({ what, pageWidth: report.viewport, viewport: report.viewport, pastTheEdge: [], cutText: [], smallText: [] });
}

describe('dashboard layout in Chromium', () => {
  it('at 1280×800 and 390×844, light and dark: nothing overflows, nothing is cut, no text under 12 px', { timeout: CLI_TEST_TIMEOUT * 2 }, async () => {
    const dir = tempDir();
    const demo = startCli(['demo', '--port', '0', '--seed', '38', '--rate', '0', '--db', join(dir.dir, 'demo.db')]);
    try {
      await demo.waitForOutput(/dashboard\s+http:\/\/\S+\/\n/, 60_000);
      const url = /dashboard\s+(http:\/\/\S+\/)\n/.exec(demo.stdout())![1]!;
      for (const size of SIZES) {
        for (const theme of THEMES) {
          const { page, context, problems } = await openPage(browser(), { ...size, colorScheme: theme });
          const tag = `${size.width}-${theme}`;
          await page.goto(url);
          await settled(page);
          await expectTidy(page, `${tag} page`);
          await page.screenshot({ path: join(ARTIFACTS, `layout-${tag}.png`), fullPage: true });

          // The dead job's detail: its error, stack and timeline.
          await page.locator('[data-state="dead"]').first().click();
          const row = page.locator('[data-testid=job-list] tr[data-job-id]').first();
          await row.waitFor();
          await row.click();
          await page.locator('[data-testid=timeline] li').first().waitFor();
          if (size.width === 1280 && theme === 'light') {
            // Relative times move on by themselves (one shared tick), the absolute time in their title.
            const created = page.locator('[data-testid=job-detail] dd time').first();
            const before = (await created.textContent()) ?? '';
            expect(before).toMatch(/ago$|^now$/);
            expect(await created.getAttribute('title')).toMatch(/\d/);
            await page.waitForFunction((text) => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector('[data-testid=job-detail] dd time')?.textContent !== text, before, { timeout: 10_000 });
          }
          await page.waitForTimeout(200);
          await expectTidy(page, `${tag} job detail`);
          await page.screenshot({ path: join(ARTIFACTS, `layout-${tag}-job.png`), fullPage: size.width < 1000 });
          if (process.env.LITEJOBS_DOCS_SCREENSHOT === '1') {
            for (const shot of [`layout-${tag}.png`, `layout-${tag}-job.png`]) {
              if (DOCS_SHOTS.has(shot)) copyFileSync(join(ARTIFACTS, shot), new URL(shot.replace('layout-', 'dashboard-'), DOCS));
            }
          }
          expect(problems).toEqual([]);
          await context.close();
        }
      }
    } finally {
      demo.proc.kill('SIGINT');
      await demo.done;
      dir.cleanup();
    }
  });
});
