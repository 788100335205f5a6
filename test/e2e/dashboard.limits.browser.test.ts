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
      // Tokens: one per claim of a job that started; a busy machine may miss a claimed-ahead job's start deadline,
      // hand it back and claim it again, spending one more. What the queue says now is what the page shows.
      const tokensLeft = (await queue.limits()).names[0]!.tokensLeft!;
      expect(tokensLeft).toBeLessThanOrEqual(48);
      expect(await cells(page.locator('[data-testid=limit-names] tr[data-name="sync"]'))).toEqual(['sync', '1', '–', '50 per 1 h', '2', String(tokensLeft), '–', 'Edit']);

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

describe('dashboard limits editor', () => {
  it("changes a name's limits while the queue runs, a running queue takes them up, and gives the definitions' back", { timeout: CLI_TEST_TIMEOUT }, async () => {
    const gates: Array<() => void> = [];
    const mail = defineJob({ name: 'mail', globalConcurrency: 1, handler: () => new Promise<void>((done) => gates.push(done)) });
    const { queue, server, close } = await serveQueue({ concurrency: 5, jobs: [mail] });
    try {
      await queue.enqueueMany([1, 2, 3].map((payload) => ({ name: 'mail', payload })));
      await queue.start();
      await waitFor(() => gates.length === 1);
      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });
      await page.goto(`${server.url}/`);
      const row = page.locator('[data-testid=limit-names] tr[data-name="mail"]');
      await row.waitFor({ timeout: 30_000 });
      await row.getByRole('button', { name: 'Edit' }).click();
      const editor = page.locator('[data-testid=limit-editor]');
      expect(await editor.locator('input[name=global]').inputValue()).toBe('1');
      await editor.locator('input[name=global]').fill('3');
      await editor.locator('input[name=max]').fill('100');
      await editor.locator('input[name=per]').fill('1s');
      await editor.getByRole('button', { name: 'Save' }).click();
      await page.locator('[data-testid=limits-done]').getByText('Limits of mail changed').waitFor({ timeout: 30_000 });
      // The running queue takes it up within a second: three run at once.
      await waitFor(() => gates.length === 3);
      expect((await queue.limits()).names[0]).toMatchObject({ name: 'mail', globalConcurrency: 3, rateLimit: { max: 100, perMs: 1000, perGroup: false } });
      // Only what the form changed is stored: the group concurrency stays the definitions'.
      expect((await queue.limits()).names[0]!.changed).toEqual({ globalConcurrency: 3, rateLimit: { max: 100, perMs: 1000, perGroup: false } });
      await row.locator('[data-changed]').waitFor({ timeout: 30_000 });

      // Not a number: said in the form, nothing sent (it once went as null, turning the limit off).
      await row.getByRole('button', { name: 'Edit' }).click();
      await editor.locator('input[name=global]').fill('ten');
      await editor.getByRole('button', { name: 'Save' }).click();
      expect(await editor.locator('[role=alert]').textContent()).toBe('global conc. must be a whole number (or empty: none)');
      expect((await queue.limits()).names[0]!.globalConcurrency).toBe(3);
      // A bad value: the server's refusal, shown in the form; nothing changed.
      await editor.locator('input[name=global]').fill('0');
      await editor.getByRole('button', { name: 'Save' }).click();
      await editor.locator('[role=alert]').waitFor({ timeout: 30_000 });
      expect(await editor.locator('[role=alert]').textContent()).toMatch(/globalConcurrency/);
      expect((await queue.limits()).names[0]!.globalConcurrency).toBe(3);

      await editor.getByRole('button', { name: 'Back to the definitions' }).click();
      await page.locator('[data-testid=limits-done]').getByText('Limits of mail back to its definitions').waitFor({ timeout: 30_000 });
      expect((await queue.limits()).names[0]).toMatchObject({ name: 'mail', globalConcurrency: 1, rateLimit: null });
      expect((await queue.limits()).names[0]!.changed).toBeUndefined();
      expect(problems.filter((p) => !p.includes('400'))).toEqual([]);
      await context.close();
    } finally {
      for (const done of gates.splice(0)) done();
      await close();
    }
  });

  it('a read-only server shows no editor', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const { server, close } = await serveQueue({ jobs: [defineJob({ name: 'mail', globalConcurrency: 1, handler: () => 1 })] }, { readOnly: true });
    try {
      const { page, context } = await openPage(browser(), { width: 1280, height: 800 });
      await page.goto(`${server.url}/`);
      await page.locator('[data-testid=limit-names] tr[data-name="mail"]').waitFor({ timeout: 30_000 });
      expect(await page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
      expect(await page.locator('input[name=other-name]').count()).toBe(0);
      await context.close();
    } finally {
      await close();
    }
  });
});
