/**
 * A chaos worker process: runs the chaos jobs (and the always-failing ones) with a few concurrent workers
 * and a short lease, and logs each handler run to its own file so that the
 * verdict can see runs the database never heard of (those cut short by a
 * SIGKILL, and those whose completion never committed).
 *
 * `node --import tsx bench/chaos/worker.ts '<WorkerConfig JSON>'`
 * stdout: `{"type":"ready"}` once started. SIGTERM: close the queue, exit 0.
 */
import { openSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { queueTarget } from '../../src/cli/open-queue.js';
import { createJobMachine } from '../../machines/job.machine.js';
import { createQueue, defineJob } from '../../src/index.js';
import { CONCURRENCY, CUSTOM_JOB_NAME, FAIL_ATTEMPTS, FAIL_BACKOFF_MS, FAIL_JOB_NAME, JOB_BACKOFF_MS, JOB_NAME, LEASE_MS, seededRandom, type WorkerConfig } from './options.js';
import { closeOnTerm, exitWithParent } from './parent-watch.js';
import { endLine, failLine, startLine } from './run-log.js';

exitWithParent();
const config = JSON.parse(process.argv[2] ?? '') as WorkerConfig;
const random = seededRandom(config.seed);
const log = openSync(config.log, 'a');

const queue = createQueue({
  ...queueTarget(config.db),
  name: config.label,
  concurrency: CONCURRENCY,
  lease: LEASE_MS,
  // Errors only, on stderr: stdout carries the messages to the controller.
  logger: pino({ level: 'error' }, pino.destination(2)),
  jobs: [
    defineJob({
      name: JOB_NAME,
      // A kill costs each job it held one attempt; never let kills alone send a job to `dead`.
      retry: { attempts: 1000, backoff: { type: 'fixed', delay: JOB_BACKOFF_MS } },
      handler: async (_payload: unknown, ctx) => {
        const start = Date.now();
        // writeSync: the line is in the kernel before the handler goes on, so a kill cannot take it back.
        writeSync(log, startLine(ctx.jobId, ctx.attempt, process.pid, start));
        // A little async work (1–5 ms) so that runs stay in flight across turns of the event loop.
        await sleep(1 + Math.floor(random() * 5));
        writeSync(log, endLine(ctx.jobId, ctx.attempt, process.pid, start, Date.now()));
        return process.pid;
      },
    }),
    defineJob({
      name: CUSTOM_JOB_NAME,
      retry: { attempts: 1000, backoff: { type: 'fixed', delay: JOB_BACKOFF_MS } },
      // A caller's job.requeue takes a running job back to pending, with a fresh set of attempts.
      machine: (policy) => createJobMachine(policy, { on: { processing: { 'job.requeue': { target: 'pending', actions: 'resetAttempts' } } } }),
      handler: async (_payload: unknown, ctx) => {
        const start = Date.now();
        writeSync(log, startLine(ctx.jobId, ctx.attempt, process.pid, start));
        // Longer than the others, and deaf to its signal: a run the operator's requeue or cancel meets while it goes on.
        await sleep(100 + Math.floor(random() * 300));
        writeSync(log, endLine(ctx.jobId, ctx.attempt, process.pid, start, Date.now()));
        return process.pid;
      },
    }),
    defineJob({
      name: FAIL_JOB_NAME,
      retry: { attempts: FAIL_ATTEMPTS, backoff: { type: 'fixed', delay: FAIL_BACKOFF_MS } },
      handler: async (_payload: unknown, ctx) => {
        const start = Date.now();
        writeSync(log, startLine(ctx.jobId, ctx.attempt, process.pid, start));
        await sleep(1 + Math.floor(random() * 5));
        writeSync(log, failLine(ctx.jobId, ctx.attempt, process.pid, start, Date.now()));
        throw new Error('chaos-fail always fails');
      },
    }),
  ],
});

closeOnTerm(() => queue.close({ timeout: 5000 }), log);

await queue.start();
process.stdout.write(`${JSON.stringify({ type: 'ready' })}\n`);
