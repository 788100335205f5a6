/**
 * Flows on the dashboard, in Chromium: the statechart draws the
 * waiting-children and sleeping states with the rest of the machine, a
 * parent's detail shows its children's counts and policy, and a child's
 * shows its parent.
 */
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';

const browser = useChromium();

describe('dashboard flows', () => {
  it('draws the flow and sleep states, and shows a parent its children and a child its parent', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const step = defineJob({ name: 'step', handler: () => undefined });
    const { queue, server, close } = await serveQueue({ jobs: [step] });
    try {
      const flow = await queue.enqueueFlow({ name: 'step', payload: {}, onChildFailure: 'continue', children: [{ name: 'step', payload: { n: 1 } }, { name: 'step', payload: { n: 2 } }] });
      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });
      await page.goto(`${server.url}/`);
      const states = page.locator('[data-state]');
      await page.locator('[data-state="waiting-children"]').first().waitFor({ timeout: 30_000 });
      const drawn = new Set(await states.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-state'))));
      for (const state of ['pending', 'processing', 'sleeping', 'waiting-children', 'completed']) expect(drawn).toContain(state);

      await page.goto(`${server.url}/#job=${flow.id}`);
      await page.locator('[data-testid=job-detail] [data-testid=job-children]').waitFor({ timeout: 30_000 });
      expect(await page.locator('[data-testid=job-children]').textContent()).toBe('2 left, 0 failed (continues)');
      await page.goto(`${server.url}/#job=${flow.children[1]!.id}`);
      await page.locator('[data-testid=job-detail] [data-testid=job-parent]').waitFor({ timeout: 30_000 });
      expect(await page.locator('[data-testid=job-parent]').textContent()).toBe(`#${flow.id}`);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await close();
    }
  });
});
