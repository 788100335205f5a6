/**
 * The dashboard's job detail in Chromium: the timeline shows the lines the
 * job's handler logged (ctx.log) among its transitions, each under the claim
 * of the attempt that logged it, with its level, fields and attempt; and says
 * how many earlier lines a job that logged too much dropped.
 */
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { JOB_LOG_LINES } from '../../src/engine/run/log-buffer.js';
import { openPage, readTimeline, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';
import { events } from '../helpers/wait.js';

const browser = useChromium();

describe('dashboard job timeline', () => {
  it('shows the job\'s log lines between the transitions they were logged between', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const sync = defineJob({
      name: 'sync',
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 0 } },
      handler: (_p, ctx) => {
        ctx.log.info({ page: ctx.attempt }, 'fetching');
        if (ctx.attempt === 1) {
          ctx.log.error('upstream down');
          throw new Error('upstream down');
        }
        ctx.log.warn('slow answer');
      },
    });
    const chatty = defineJob({ name: 'chatty', handler: (_p, ctx) => { for (let i = 1; i <= JOB_LOG_LINES + 3; i++) ctx.log.info(`line ${i}`); } });
    // Logged nowhere (`logger: false`), stored all the same.
    const { queue, server, close } = await serveQueue({ logger: false, jobs: [sync, chatty] });
    try {
      const done = events(queue.events$, (e) => e.to === 'completed', 2);
      const { id } = await queue.enqueue('sync', null);
      const { id: chattyId } = await queue.enqueue('chatty', null);
      await queue.start();
      await done;

      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });
      await page.goto(`${server.url}/#job=${id}`);
      await page.locator('[data-testid=timeline-log]').nth(3).waitFor({ timeout: 30_000 });
      const { kinds, texts } = await readTimeline(page);
      expect(kinds).toEqual(['transition', 'transition', 'log', 'log', 'transition', 'transition', 'transition', 'log', 'log', 'transition']);
      expect(texts[1]).toMatch(/^pending → processing/);
      expect(texts[2]).toMatch(/^info fetching\{"page":1\}.* · attempt 1$/);
      expect(texts[3]).toMatch(/^error upstream down.* · attempt 1$/);
      expect(texts[4]).toMatch(/^processing → failed/);
      expect(texts[7]).toMatch(/^info fetching\{"page":2\}.* · attempt 2$/);
      expect(texts[8]).toMatch(/^warn slow answer.* · attempt 2$/);
      expect(texts[9]).toMatch(/^processing → completed/);
      expect(await page.locator('[data-testid=log-dropped]').count()).toBe(0);

      await page.goto(`${server.url}/#job=${chattyId}`);
      await page.locator('[data-testid=log-dropped]').waitFor({ timeout: 30_000 });
      expect(await page.locator('[data-testid=log-dropped]').textContent()).toBe('3 earlier log lines dropped (a job keeps its newest).');
      expect(await page.locator('[data-testid=timeline-log]').count()).toBe(JOB_LOG_LINES);
      expect(await page.locator('[data-testid=timeline-log] .log-message').first().textContent()).toBe('line 4');
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await close();
    }
  });
});
