/**
 * `npm start`: the demo. Four jobs in ./litejobs.db, four worker actors, at
 * most three retries with backoff, a log line per transition. Ctrl+C or
 * SIGTERM drains running jobs and exits cleanly. Running it again finds the
 * same jobs (idempotency keys) instead of adding new ones.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { createQueue, defineJob, isTransition, type QueueEvent } from '../index.js';
import { prettyLines } from './pretty-lines.js';

// The demo ships in the package, so it logs through a formatter of its own
// rather than a dev-only pretty printer that an install would not have.
const logger = pino({ level: process.env.LITEJOBS_LOG_LEVEL ?? 'debug' }, prettyLines());
const retry = { attempts: 4, backoff: { type: 'exponential', delay: 250 } } as const; // 1 run + 3 retries

const queue = createQueue({
  path: process.env.LITEJOBS_DB ?? './litejobs.db',
  concurrency: 4,
  logger,
  jobs: [
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
      handler: async ({ month }: { month: string }, { signal, progress }) => {
        for (let page = 1; page <= 4; page++) {
          await sleep(100, undefined, { signal });
          await progress(page * 25);
        }
        return { file: `report-${month}.pdf`, pages: 4 };
      },
    }),
    defineJob({
      name: 'sync-webhook',
      retry,
      handler: async ({ url, event }: { url: string; event: string }, { signal }) => {
        await sleep(80, undefined, { signal });
        return { delivered: event, to: url };
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
  ],
});

const demoJobs = [
  { name: 'send-welcome-email', payload: { to: 'ada@example.com' }, options: { key: 'demo:welcome-email' } },
  { name: 'generate-monthly-report', payload: { month: '2026-11' }, options: { key: 'demo:monthly-report' } },
  { name: 'sync-webhook', payload: { url: 'https://example.com/hooks', event: 'invoice.paid' }, options: { key: 'demo:webhook-sync' } },
  { name: 'fail-me', payload: {}, options: { key: 'demo:fail-me' } },
];

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'draining running jobs');
  await queue.close({ timeout: 10_000 });
  process.exit(0);
}
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));

const finished = new Set(['completed', 'dead', 'cancelled']);
const ids = (await queue.enqueueMany(demoJobs)).map((r, i) => {
  logger.info({ jobId: r.id, job: demoJobs[i]!.name, created: r.created }, r.created ? 'enqueued' : 'already enqueued (same key)');
  return r.id;
});

const pending = new Set<number>();
for (const id of ids) if (!finished.has((await queue.getJob(id)).state)) pending.add(id);
const allDone = new Promise<void>((resolve) => {
  if (pending.size === 0) resolve();
  queue.events$.subscribe((e: QueueEvent) => {
    if (isTransition(e) && finished.has(e.to) && pending.delete(e.job.id) && pending.size === 0) resolve();
  });
});

await queue.start();
await allDone;
if (!stopping) {
  for (const id of ids) {
    const job = await queue.getJob(id);
    const path = (await queue.history(id)).map((t) => t.to).join(' → ');
    logger.info({ jobId: id, job: job.name, state: job.state, attempts: job.attempts, result: job.result }, `timeline: ${path}`);
  }
  logger.info({ stats: (await queue.stats()).byState }, 'all demo jobs finished');
  await shutdown('done');
}
