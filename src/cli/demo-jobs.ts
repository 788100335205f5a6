/**
 * The demo's sample jobs and what it enqueues at start: a welcome email, a
 * report with progress, a job that fails twice before it succeeds, one that
 * goes dead until someone retries it, and
 * webhook deliveries to the demo's flaky receiver. Reports run one per
 * customer at a time (a concurrency group per customer). Now and then a
 * catalog is published as a flow: its pages render in durable steps, and the
 * catalog job waits in `waiting-children` until they have. Exchange rates are
 * refreshed on a cron schedule every 30 s. Idempotency keys make a second run
 * find the same jobs instead of adding new ones.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { defineJob, type AnyJobDefinition } from '../engine/core/job-definition.js';
import { UnrecoverableError } from '../errors.js';

/** Order batches whose first run failed in this process; their next run succeeds. */
const retriedImports = new Set<number>();

const retry = { attempts: 4, backoff: { type: 'exponential', delay: 250 } } as const; // 1 run + 3 retries

/** The sample job on a cron schedule (`demo --no-schedule` leaves it out). */
export const SCHEDULED_SAMPLE = 'refresh-exchange-rates';

export const demoJobs: AnyJobDefinition[] = [
  // A cron schedule, stored in the database: the dashboard's Schedules panel and `litejobs schedules` show it.
  defineJob({
    name: SCHEDULED_SAMPLE,
    schedule: { cron: '*/30 * * * * *', payload: { base: 'EUR' } },
    handler: async ({ base }: { base: string }, { signal }) => {
      await sleep(50, undefined, { signal });
      return { base, rates: 3 };
    },
  }),
  defineJob({
    name: 'send-welcome-email',
    retry,
    handler: async ({ to }: { to: string }, { signal, log }) => {
      await sleep(150, undefined, { signal });
      log.info({ to }, 'welcome email sent');
      return { messageId: `msg-${to}` };
    },
  }),
  defineJob({
    name: 'generate-monthly-report',
    retry,
    timeout: 10_000,
    // One report per customer at a time (the dashboard's Limits panel shows the groups).
    groupConcurrency: 1,
    handler: async ({ month }: { month: string }, { signal, progress }) => {
      for (let page = 1; page <= 4; page++) {
        await sleep(100, undefined, { signal });
        await progress(page * 25);
      }
      return { file: `report-${month}.pdf`, pages: 4 };
    },
  }),
  defineJob({
    name: 'import-orders',
    retry,
    handler: async ({ batch }: { batch: number }, { log }) => {
      // Its lines are kept with the job: the dashboard's job page and `litejobs job <id> --logs` show them.
      log.info({ batch, upstream: 'orders.example.com' }, 'fetching order batch');
      // Dead on its first run in this process, fine once retried: a job to retry from the dashboard.
      if (!retriedImports.has(batch)) {
        retriedImports.add(batch);
        log.warn({ batch, status: 422 }, 'upstream rejected the batch: not retrying on its own');
        throw new UnrecoverableError(`upstream rejected order batch ${batch} (retry it: litejobs retry, or the dashboard)`);
      }
      log.info({ batch, imported: 25 }, 'imported order batch');
      return { imported: 25, batch };
    },
  }),
  defineJob({
    name: 'render-page',
    retry,
    handler: async ({ page }: { page: number }, { signal, step }) => {
      const layout = await step('layout', async () => {
        await sleep(80, undefined, { signal });
        return { columns: 2 + (page % 2) };
      });
      await step('rasterise', () => sleep(120, undefined, { signal }));
      return { page, ...layout };
    },
  }),
  defineJob({
    name: 'publish-catalog',
    retry,
    handler: async ({ edition }: { edition: number }, { children }) => {
      const pages = await children();
      return { edition, pages: pages.filter((p) => p.state === 'completed').length };
    },
  }),
  defineJob({
    name: 'fail-me',
    retry,
    handler: async (_payload: unknown, { attempt }) => {
      if (attempt <= 2) throw new Error(`simulated failure on attempt ${attempt}`);
      return { succeededOnAttempt: attempt };
    },
  }),
];

/** How many webhook deliveries the demo enqueues at start. */
export const DEMO_DELIVERIES = 12;

export function demoEnqueues(sinkUrl: string) {
  return [
    { name: 'send-welcome-email', payload: { to: 'ada@example.com' }, options: { key: 'demo:welcome-email' } },
    { name: 'generate-monthly-report', payload: { month: '2026-11' }, options: { key: 'demo:monthly-report', group: 'customer:42' } },
    { name: 'fail-me', payload: {}, options: { key: 'demo:fail-me' } },
    { name: 'import-orders', payload: { batch: 1, customer: 42 }, options: { key: 'demo:import-orders:1' } },
    ...Array.from({ length: DEMO_DELIVERIES }, (_, i) => ({
      name: 'webhook',
      payload: { url: `${sinkUrl}/deliveries`, body: { event: 'invoice.paid', invoice: 1000 + i } },
      options: { key: `demo:delivery:${sinkUrl}:${i}` },
    })),
  ];
}

/** A catalog published as a flow: the catalog waits for its pages. */
export function sampleFlow(i: number) {
  return {
    name: 'publish-catalog',
    payload: { edition: i },
    children: Array.from({ length: 4 }, (_, page) => ({ name: 'render-page', payload: { page: page + 1 } })),
  };
}

/** A stream of sample jobs (the dashboard's charts have something to show): the i-th one. */
export function sampleJob(i: number, random: () => number) {
  const customer = 1 + Math.floor(random() * 50);
  const pick = random();
  if (pick < 0.6) return { name: 'send-welcome-email', payload: { to: `user${i}@example.com`, customer } };
  if (pick < 0.85) return { name: 'generate-monthly-report', payload: { month: '2026-11', customer }, options: { group: `customer:${customer}` } };
  if (pick < 0.95) return { name: 'fail-me', payload: { customer } };
  return { name: 'import-orders', payload: { batch: 1000 + i, customer } };
}
