/**
 * What `litejobs serve` and `litejobs demo` run: a queue with workers and the
 * HTTP API in one process, until SIGINT or SIGTERM. Shutdown is in order:
 * stop accepting requests and answer those in flight (each answered one is
 * committed), then stop claiming, let running jobs finish (up to `drainMs`),
 * and close the database.
 */
import type { Logger } from 'pino';
import type { AnyJobDefinition } from '../engine/job-definition.js';
import { startServer, type RunningServer } from '../http/server.js';
import type { HookOptions } from '../http/routes/hooks.js';
import { createQueue, type Queue } from '../queue.js';
import { defineWebhookJob } from '../webhook/webhook-job.js';

export interface ServiceOptions {
  path: string;
  host: string;
  port: number;
  token?: string;
  concurrency: number;
  durability: 'normal' | 'full';
  /** Jobs run besides the built-in `webhook` job (a job named `webhook` here replaces it). */
  jobs: readonly AnyJobDefinition[];
  hooks?: Record<string, HookOptions>;
  logger: Logger;
  /** How long running jobs may take to finish at shutdown. */
  drainMs: number;
}

export interface Service {
  queue: Queue;
  server: RunningServer;
  /** Resolves once shut down (after a signal, or `stop()`). */
  closed: Promise<void>;
  stop(): Promise<void>;
}

export async function startService(o: ServiceOptions): Promise<Service> {
  const jobs = o.jobs.some((job) => job.name === 'webhook') ? [...o.jobs] : [defineWebhookJob(), ...o.jobs];
  const queue = createQueue({ path: o.path, concurrency: o.concurrency, durability: o.durability, logger: o.logger, jobs });
  let server: RunningServer;
  try {
    server = await startServer({ queue, host: o.host, port: o.port, logger: o.logger, metrics: { processMetrics: true }, ...(o.token ? { token: o.token } : {}), ...(o.hooks ? { hooks: o.hooks } : {}) });
  } catch (err) {
    await queue.close();
    throw err;
  }
  await queue.start();

  let resolveClosed!: () => void;
  let rejectClosed!: (err: unknown) => void;
  const closed = new Promise<void>((resolve, reject) => {
    resolveClosed = resolve;
    rejectClosed = reject;
  });
  const onSignal = (signal: NodeJS.Signals) => {
    o.logger.info({ signal }, 'signal received');
    stop().catch(() => {}); // the failure reaches whoever awaits `closed`
  };
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      o.logger.info('shutting down: answering requests in flight, then letting running jobs finish');
      try {
        await server.close();
        await queue.close({ timeout: o.drainMs });
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      o.logger.info('stopped');
    })().then(resolveClosed, (err: unknown) => {
      rejectClosed(err);
      throw err;
    });
    return stopping;
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return { queue, server, closed, stop };
}
