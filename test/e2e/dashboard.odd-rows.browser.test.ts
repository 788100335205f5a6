/**
 * Rows a store may hold that litejobs never writes (edited by hand, or by a
 * tool of one's own): a run time past what a Date holds, a payload, a result
 * and an error that are not JSON. The page lists each state and opens each
 * job with no script error, the API answers 200, and the CLI lists and
 * shows them.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { openPage, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT, runCli } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';

const browser = useChromium();

describe('rows litejobs never writes', () => {
  it('are listed and opened by the page, the API and the CLI without an error', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const { server, queue, path, close } = await serveQueue({ jobs: [defineJob({ name: 'odd', handler: () => 'ok' })] });
    try {
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await queue.enqueue('odd', { i })).id);
      const db = new Database(path);
      db.prepare('UPDATE jobs SET run_at = 1e300 WHERE id = ?').run(ids[0]);
      db.prepare("UPDATE jobs SET state = 'dead', last_error = 'not json', payload = 'not json either' WHERE id = ?").run(ids[1]);
      db.prepare("UPDATE jobs SET state = 'completed', result = '{broken', updated_at = 1e16 WHERE id = ?").run(ids[2]);
      db.prepare("INSERT INTO job_history (job_id, from_state, to_state, event, at) VALUES (?, 'pending', 'pending', 'job.update', 1e300)").run(ids[0]);
      db.close();

      for (const route of ['/v1/jobs', ...ids.map((id) => `/v1/jobs/${id}`), ...['pending', 'dead', 'completed'].map((s) => `/v1/dashboard/jobs?state=${s}`)]) {
        expect([route, (await fetch(server.url + route)).status]).toEqual([route, 200]);
      }
      for (const args of [['jobs'], ...ids.map((id) => ['job', String(id)]), ['jobs', '--state', 'pending']]) {
        const r = await runCli([...args, '--db', path]);
        expect([args.join(' '), r.code, r.stderr]).toEqual([args.join(' '), 0, '']);
      }

      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });
      await page.goto(`${server.url}/`);
      for (const [state, id] of [['pending', ids[0]], ['dead', ids[1]], ['completed', ids[2]]] as const) {
        await page.locator(`[data-state="${state}"]`).first().click();
        const row = page.locator(`[data-testid=job-list] tr[data-job-id="${id}"]`);
        await row.waitFor();
        await row.click();
        await page.locator('[data-testid=job-detail]').getByText('odd').first().waitFor();
      }
      await page.locator('[data-testid=job-detail]').getByText('{broken').first().waitFor();
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await close();
    }
  });
});
