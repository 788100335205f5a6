/**
 * A machine of the user's own with a state whose name is one long word: the
 * page at 1280 and at 390 px is no wider than the screen (the name wraps in
 * the list of states, the chart fits its panel), and the state is there.
 */
import { describe, expect, it } from 'vitest';
import { createJobMachine } from '../../machines/job.machine.js';
import { defineJob } from '../../src/index.js';
import { openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';
import { probeLayout } from '../helpers/layout-probe.js';

const LONG = `awaiting${'Manual'.repeat(12)}Review`;

const browser = useChromium();

describe('a custom machine with a long state name', () => {
  it('keeps the page within the screen at 1280 and 390 px', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const machine = createJobMachine(undefined, {
      on: { pending: { 'job.hold': { target: LONG } } },
      states: { [LONG]: { on: { 'job.release-hold': { target: 'pending' }, 'job.cancel': { target: 'cancelled' } } } },
    } as never);
    const review = defineJob({ name: 'review', machine, handler: () => 'ok' });
    const { server, close } = await serveQueue({ jobs: [review] });
    try {
      for (const size of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ]) {
        const { page, context, problems } = await openPage(browser(), size);
        await page.goto(`${server.url}/`);
        await page.locator('[role=tab][data-machine]').nth(1).click();
        await page.locator(`#machine-panel [data-state="${LONG}"]`).first().waitFor();
        const report = await probeLayout(page);
        expect({ size: size.width, pageWidth: report.pageWidth, pastTheEdge: report.pastTheEdge }).toEqual({ size: size.width, pageWidth: report.viewport, pastTheEdge: [] });
        expect(problems).toEqual([]);
        await context.close();
      }
    } finally {
      await close();
    }
  });
});
