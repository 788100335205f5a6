/**
 * The dashboard's job detail in Chromium: the timeline shows the job's
 * durable steps beside its transitions, each after the transition it ran
 * behind (a step completed on attempt 1 under the first `processing`, the
 * one completed on attempt 2 under the second).
 */
import { describe, expect, it } from 'vitest';
import { defineJob } from '../../src/index.js';
import { openPage, readTimeline, useChromium } from '../helpers/browser.js';
import { CLI_TEST_TIMEOUT } from '../helpers/cli.js';
import { serveQueue } from '../helpers/served-queue.js';
import { nextEvent } from '../helpers/wait.js';

const browser = useChromium();

describe('dashboard job timeline', () => {
  it('shows the completed steps between the transitions they ran between', { timeout: CLI_TEST_TIMEOUT }, async () => {
    const job = defineJob({
      name: 'stepped',
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 0 } },
      handler: async (_p, ctx) => {
        await ctx.step('fetch', () => ({ rows: 3 }));
        await ctx.sleep('pause', 0);
        await ctx.step('store', () => {
          if (ctx.attempt === 1) throw new Error('disk busy');
          return 'saved';
        });
      },
    });
    const { queue, server, close } = await serveQueue({ jobs: [job] });
    try {
      const { id } = await queue.enqueue('stepped', null);
      const done = nextEvent(queue.events$, (e) => e.job.id === id && e.to === 'completed');
      await queue.start();
      await done;

      const { page, context, problems } = await openPage(browser(), { width: 1280, height: 800 });
      await page.goto(`${server.url}/#job=${id}`);
      await page.locator('[data-testid=timeline-step]').nth(2).waitFor({ timeout: 30_000 });
      const { kinds, texts } = await readTimeline(page);
      expect(kinds).toEqual(['transition', 'transition', 'step', 'step', 'transition', 'transition', 'transition', 'step', 'transition']);
      expect(texts[2]).toMatch(/^step 1 fetch → \{"rows":3\}.* attempt 1$/);
      expect(texts[3]).toMatch(/^step 2 pause · sleep until .* attempt 1$/);
      expect(texts[4]).toMatch(/^processing → failed/);
      expect(texts[6]).toMatch(/^pending → processing/);
      expect(texts[7]).toMatch(/^step 3 store → "saved".* attempt 2$/);
      expect(texts[8]).toMatch(/^processing → completed/);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await close();
    }
  });
});
