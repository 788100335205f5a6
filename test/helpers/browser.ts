/**
 * Debian's Chromium driven by playwright-core, as the dashboard's users run
 * it: headless, no browser download, no traffic beyond loopback. Every page
 * records its console errors and warnings, uncaught exceptions and failed
 * requests, so a test can assert there were none.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { beforeAll } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = fileURLToPath(new URL('../e2e/artifacts/', import.meta.url));

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (.ci/run does)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and warnings, page errors, and requests that failed or answered ≥ 400, as lines. */
  problems: string[];
}

/** A fresh context (own storage) and page of this size and colour scheme, watched for problems. */
export async function openPage(browser: Browser, options: { width: number; height: number; colorScheme?: 'light' | 'dark' }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: options.width, height: options.height }, colorScheme: options.colorScheme ?? 'light' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (r) => {
    // A stream the page closes itself (tab hidden, page closed) is not a failure.
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return { page, context, problems };
}

/**
 * One Chromium for the test worker: launched before the first browser test
 * file's tests, kept for the files after it (the worker runs file after
 * file, helpers/after-each.ts), and ended with the worker (playwright kills
 * the browsers it launched when the process exits). Tests open a context of
 * their own, so no state passes between them. Call the getter inside a test.
 */
let shared: Browser | undefined;

export function useChromium(): () => Browser {
  beforeAll(async () => {
    if (!shared?.isConnected()) shared = await launchChromium();
  });
  return () => {
    if (!shared) throw new Error('useChromium: the browser is launched in beforeAll; call the getter inside a test');
    return shared;
  };
}

/** The job detail's timeline as read on the page: each item's kind (a transition, a logged line or a step) and its text, spaces folded. */
export async function readTimeline(page: Page): Promise<{ kinds: Array<'transition' | 'log' | 'step'>; texts: string[] }> {
  const items = page.locator('[data-testid=timeline] > li');
  const texts = (await items.allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
  const kinds = await items.evaluateAll((lis) =>
    lis.map((li) => {
      const id = li.getAttribute('data-testid');
      return id === 'timeline-log' ? 'log' : id === 'timeline-step' ? 'step' : 'transition';
    }),
  );
  return { kinds, texts };
}
