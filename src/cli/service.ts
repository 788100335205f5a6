/**
 * What `litejobs serve` and `litejobs demo` run: a queue with workers and the
 * HTTP API in one process, until SIGINT or SIGTERM. Shutdown is in order:
 * stop accepting requests and answer those in flight (each answered one is
 * committed), then stop claiming, let running jobs finish (up to `drainMs`),
 * and close the database.
 */
import type { PoolOptions } from '../engine/core/pools.js';
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { DatabaseError, ValidationError } from '../errors.js';
import type { AnyJobDefinition } from '../engine/core/job-definition.js';
import { startServer, type RunningServer } from '../http/server.js';
import type { HookOptions } from '../http/routes/hooks.js';
import { createQueue, type Queue } from '../queue.js';
import { isPostgres, queueTarget } from './open-queue.js';
import { defineWebhookJob } from '../webhook/webhook-job.js';
import { isPrivateTarget } from '../webhook/targets.js';

export interface ServiceOptions {
  path: string;
  host: string;
  port: number;
  token?: string;
  /** Change nothing: no workers, no schedules firing, and nothing over HTTP (the dashboard shows it is read-only). */
  readOnly?: boolean;
  concurrency: number;
  /** Worker pools of their own (createQueue `pools`). */
  pools?: Record<string, PoolOptions>;
  durability: 'normal' | 'full';
  /** Jobs run besides the built-in `webhook` job (a job named `webhook` here replaces it). */
  jobs: readonly AnyJobDefinition[];
  hooks?: Record<string, HookOptions>;
  /** Host header values answered besides the bound address (ServerOptions `allowedHosts`). */
  allowedHosts?: readonly string[];
  /** With `hooks`, also accept unlisted hooks named after a job this service runs. */
  openHooks?: boolean;
  /** URL prefixes the `webhook` job may send to besides the hooks' `deliverTo`; none given and no `deliverTo`: nowhere. */
  deliverTo?: readonly string[];
  /** Let the `webhook` job send to loopback and private addresses. */
  allowPrivateTargets?: boolean;
  /** Connections at once, in all and from one client address (ServerOptions). */
  maxConnections?: number;
  maxConnectionsPerClient?: number;
  logger: Logger;
  /** How long running jobs may take to finish at shutdown. */
  drainMs: number;
}

export interface Service {
  queue: Queue;
  server: RunningServer;
  /** Resolves once shut down, after the first SIGINT or SIGTERM. */
  closed: Promise<void>;
}

export async function startService(o: ServiceOptions): Promise<Service> {
  // The webhook job sends where the operator said (the hooks' deliverTo, --deliver-to), never where a request body says.
  const targets = [...Object.values(o.hooks ?? {}).flatMap((h) => (h.deliverTo ? [h.deliverTo] : [])), ...(o.deliverTo ?? [])];
  // A hook's deliverSecret signs what it forwards (Standard Webhooks), for its deliverTo target.
  const signatures = Object.fromEntries(Object.values(o.hooks ?? {}).flatMap((h) => (h.deliverTo && h.deliverSecret ? [[h.deliverTo, h.deliverSecret]] : [])));
  // A target the job would refuse to send to is a server that cannot deliver: said at start, with the flag that allows it.
  if (o.allowPrivateTargets !== true) for (const target of targets) refusePrivateTarget(target);
  const webhook = defineWebhookJob({ allowTargets: targets, allowPrivate: o.allowPrivateTargets === true, signatures });
  const jobs = o.jobs.some((job) => job.name === 'webhook') ? [...o.jobs] : [webhook, ...o.jobs];
  // Read-only writes nothing: not even a new, empty file at a mistyped path.
  if (o.readOnly === true && !isPostgres(o.path) && !existsSync(o.path)) {
    throw new DatabaseError('LJ_ERR_DATABASE_OPEN', `database ${o.path} does not exist (a read-only server opens an existing litejobs file)`);
  }
  const queue = createQueue({ ...queueTarget(o.path), concurrency: o.concurrency, durability: o.durability, logger: o.logger, jobs, ...(o.pools ? { pools: o.pools } : {}) });
  let server: RunningServer;
  try {
    const bounds = { ...(o.maxConnections ? { maxConnections: o.maxConnections } : {}), ...(o.maxConnectionsPerClient ? { maxConnectionsPerClient: o.maxConnectionsPerClient } : {}) };
    server = await startServer({ ...bounds, queue, host: o.host, port: o.port, logger: o.logger, metrics: { processMetrics: true }, readOnly: o.readOnly === true, allowedHosts: o.allowedHosts ?? [], ...(o.openHooks ? { onlyListedHooks: false } : {}), ...(o.token ? { token: o.token } : {}), ...(o.hooks ? { hooks: o.hooks } : {}) });
  } catch (err) {
    await queue.close();
    throw err;
  }
  // Read-only runs nothing either: a server beside the main one, for people who only look, must not take its jobs.
  if (o.readOnly !== true) await queue.start();

  let onSignal!: (signal: NodeJS.Signals) => void;
  const signalled = new Promise<NodeJS.Signals>((resolve) => (onSignal = resolve));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const closed = signalled.then(async (signal) => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal); // a second signal now ends the process at once
    o.logger.info({ signal }, 'shutting down: answering requests in flight, then letting running jobs finish');
    await server.close();
    await queue.close({ timeout: o.drainMs });
    o.logger.info('stopped');
  });
  return { queue, server, closed };
}

/** Refuses a deliverTo (or --deliver-to) URL on a loopback or private address, naming --allow-private-targets. */
function refusePrivateTarget(target: string): void {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return; // not a URL: checked, with its own message, where the hooks and targets are read
  }
  if (isPrivateTarget(url)) throw new ValidationError(`${url.origin} is a loopback or private address: the webhook job sends there only with --allow-private-targets`);
}
