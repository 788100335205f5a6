/**
 * The dashboard's overview in Chromium: one row per job name with its counts
 * after jobs complete, die and land in a custom machine's own state, kept up
 * live; a paused name shows as paused and is resumed from its row; clicking a
 * count lists that state's jobs of that name; at phone width the table
 * scrolls inside its own box with the names in place, in the dark theme.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createQuarantineMachine } from '../../machines/examples/quarantine.machine.js';
import { defineJob, UnrecoverableError, ValidationError } from '../../src/index.js';
import { ARTIFACTS, openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';
import { events } from '../helpers/wait.js';

const browser = useChromium();

const jobs = [
  defineJob({ name: 'send', handler: async () => 'sent' }),
  // Paused before its jobs come: they wait.
  defineJob({ name: 'audit', handler: async () => 'audited' }),
  defineJob({
    name: 'charge',
    handler: async () => {
      throw new UnrecoverableError('card declined');
    },
  }),
  defineJob({
    name: 'import',
    machine: createQuarantineMachine,
    handler: async () => {
      throw new ValidationError('bad row');
    },
  }),
];

const row = (page: Page, name: string) => page.locator(`[data-testid=overview] tr[data-overview-name="${name}"]`);
const cell = (page: Page, name: string, state: string) => row(page, name).locator(`td[data-overview-state="${state}"]`);

async function expectCell(page: Page, name: string, state: string, n: number): Promise<void> {
  await cell(page, name, state).filter({ hasText: new RegExp(`^\\s*${n}\\s*$`) }).waitFor({ timeout: 30_000 });
}

/** Every row of the job list names `name`, and there are `n`. */
async function expectList(page: Page, state: string, name: string, n: number): Promise<void> {
  const list = page.locator('[data-testid=job-list]');
  await list.locator(`h2 .pill.s-${state}`).waitFor({ timeout: 15_000 });
  await expect.poll(() => list.locator('select').inputValue(), { timeout: 15_000 }).toBe(name);
  const rows = list.locator('tr[data-job-id]');
  await rows.nth(n - 1).waitFor({ timeout: 15_000 });
  await list.getByText(`${n} shown`).waitFor({ timeout: 15_000 });
  expect(new Set(await rows.locator('td:nth-child(3)').allTextContents())).toEqual(new Set([name]));
}

describe('dashboard overview', () => {
  it('lists each name with its counts live, shows and lifts a pause, and opens the job list of a count', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const { queue, server, close } = await serveQueue({ concurrency: 4, jobs });
    try {
      const settled = (n: number) => events(queue.events$, (e) => ['completed', 'dead', 'quarantined'].includes(e.to), n);
      let done = settled(6);
      await queue.enqueueMany([
        { name: 'send', payload: 1 },
        { name: 'send', payload: 2 },
        { name: 'send', payload: 3 },
        { name: 'charge', payload: 1 },
        { name: 'charge', payload: 2 },
        { name: 'import', payload: 1 },
      ]);
      await queue.start();
      await done;
      await queue.pause('audit');
      await queue.enqueueMany([
        { name: 'audit', payload: 1 },
        { name: 'audit', payload: 2 },
      ]);

      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 900 });
      await page.goto(`${server.url}/`);
      await expectCell(page, 'send', 'completed', 3);
      await expectCell(page, 'charge', 'dead', 2);
      await expectCell(page, 'import', 'quarantined', 1);
      await expectCell(page, 'audit', 'pending', 2);
      expect(await page.locator('[data-testid=overview] tbody tr[data-overview-name]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-overview-name')))).toEqual([
        'audit',
        'charge',
        'import',
        'send',
      ]);
      // The base states in lifecycle order, then the custom machine's own.
      expect((await page.locator('[data-testid=overview] thead th').allTextContents()).slice(0, 8)).toEqual(['name', 'pending', 'processing', 'failed', 'completed', 'dead', 'cancelled', 'quarantined']);
      expect(await row(page, 'audit').locator('.paused-badge').textContent()).toBe('paused');
      expect(await row(page, 'send').locator('.paused-badge').count()).toBe(0);
      await row(page, 'send').locator('[data-overview-throughput]').filter({ hasText: /\/min/ }).waitFor({ timeout: 15_000 });

      // Jobs that finish while the page is open: the counts follow the stream.
      done = settled(3);
      await queue.enqueueMany([
        { name: 'send', payload: 4 },
        { name: 'send', payload: 5 },
        { name: 'charge', payload: 3 },
      ]);
      await done;
      await expectCell(page, 'send', 'completed', 5);
      await expectCell(page, 'charge', 'dead', 3);
      await page.screenshot({ path: join(ARTIFACTS, 'overview-1280-light.png') });

      // A count opens the job list of that state and that name.
      await cell(page, 'send', 'completed').locator('button').click();
      await expectList(page, 'completed', 'send', 5);
      await cell(page, 'charge', 'dead').locator('button').click();
      await expectList(page, 'dead', 'charge', 3);
      // A name with a machine of its own: the list switches to that machine's states.
      await cell(page, 'import', 'quarantined').locator('button').click();
      await expectList(page, 'quarantined', 'import', 1);

      // A name first enqueued after the page opened: its row appears, and the list's name filter offers it.
      await queue.enqueue('late-arrival' as never, {} as never);
      await expectCell(page, 'late-arrival', 'pending', 1);
      await cell(page, 'late-arrival', 'pending').locator('button').click();
      await expectList(page, 'pending', 'late-arrival', 1);
      expect(await page.locator('[data-testid=job-list] select').first().inputValue()).toBe('late-arrival');

      // Resume the paused name from its row.
      await row(page, 'audit').locator('[data-action=resume]').click();
      await page.locator('[data-testid=confirm-ok]').click();
      await row(page, 'audit').locator('[data-action=pause]').waitFor({ timeout: 15_000 });
      expect(await row(page, 'audit').locator('.paused-badge').count()).toBe(0);
      expect((await queue.stats()).paused).toEqual({ all: false, names: [] });
      expect(problems).toEqual([]);
      await context.close();

      // A phone, dark: nothing wider than the screen; the table scrolls in its own box, the names stay in view.
      const long = 'reconcile-ledger-entries-every-night';
      await queue.enqueue(long, null); // no handler here: it waits
      const phone = await openPage(browser(), { width: 390, height: 844, colorScheme: 'dark' });
      await phone.page.goto(`${server.url}/`);
      await expectCell(phone.page, 'send', 'completed', 5);
      await expectCell(phone.page, long, 'pending', 1);
      // What needs attention comes first: dead and failed are the first columns, in view without scrolling.
      const heads = await phone.page.locator('[data-testid=overview] thead th').allTextContents();
      expect(heads.slice(1, 3).map((h) => h.trim())).toEqual(['dead', 'failed']);
      for (const state of ['dead', 'failed']) {
        const b = (await cell(phone.page, 'charge', state).boundingBox())!;
        expect(b.x + b.width).toBeLessThanOrEqual(390);
      }
      // A long name wraps, whole, instead of being cut.
      const label = row(phone.page, long).locator('.overview-label');
      expect(await label.evaluate((el) => ({ cut: el.scrollWidth > el.clientWidth, text: el.textContent }))).toEqual({ cut: false, text: long });
      const doc = () => phone.page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
      expect(await doc()).toBeLessThanOrEqual(390);
      const box = phone.page.locator('.overview-scroll');
      const widths = await box.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      expect(widths.scroll).toBeGreaterThan(widths.client);
      const nameCell = row(phone.page, 'send').locator('th');
      const countCell = cell(phone.page, 'send', 'completed');
      const x = async () => ({ name: (await nameCell.boundingBox())!.x, count: (await countCell.boundingBox())!.x });
      const before = await x();
      await box.evaluate((el) => el.scrollBy(120, 0));
      const after = await x();
      expect(after.name).toBe(before.name);
      expect(after.count).toBeLessThan(before.count - 100);
      await phone.page.screenshot({ path: join(ARTIFACTS, 'overview-390-dark.png') });
      expect(phone.problems).toEqual([]);
      await phone.context.close();
    } finally {
      await close();
    }
  });
});
