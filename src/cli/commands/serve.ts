/** `litejobs serve`: the webhook-ingestion service (HTTP API + workers) on one database. */
import type { PoolOptions } from '../../engine/core/pools.js';
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { pino, type Logger } from 'pino';
import type { HookOptions } from '../../http/routes/hooks.js';
import { collectPool, parseConcurrency, parseConnections, parsePort, parseToken } from '../args.js';
import { document } from '../command-docs.js';
import { CliFailure, ExitCode } from '../exit-codes.js';
import type { CliIO } from '../io.js';
import { loadHandlers } from '../load-handlers.js';
import { databaseOf, isPostgres } from '../open-queue.js';
import { withoutPassword } from '../../store/connection-url.js';
import { prettyLines } from '../pretty-lines.js';

export const TOKEN_ENV = 'LITEJOBS_TOKEN';

/** Logs as JSON lines (for a log shipper), or as readable lines on a terminal. */
export function serviceLogger(io: CliIO): Logger {
  const level = process.env.LITEJOBS_LOG_LEVEL ?? 'info';
  return io.stdout.isTTY ? pino({ level }, prettyLines(io.stdout)) : pino({ level });
}

function readHooks(file: string): Record<string, HookOptions> {
  try {
    const hooks = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) throw new Error('expected an object of hook settings by hook name');
    return hooks as Record<string, HookOptions>;
  } catch (err) {
    throw new CliFailure(`cannot read hooks from ${file}: ${(err as Error).message}`);
  }
}

interface ServeFlags {
  port: number;
  host: string;
  concurrency: number;
  pool?: Record<string, PoolOptions>;
  handlers?: string;
  token?: string;
  hooks?: string;
  durability: 'normal' | 'full';
  readOnly?: boolean;
  allowedHost?: string[];
  openHooks?: boolean;
  deliverTo?: string[];
  allowPrivateTargets?: boolean;
  maxConnections: number;
  maxConnectionsPerClient: number;
}

export function registerServe(program: Command, io: CliIO): void {
  const cmd = program
    .command('serve')
    .description('Run the HTTP API (job and webhook ingestion, control, the dashboard at /, /metrics, /healthz) with a pool of workers, until SIGINT or SIGTERM.')
    .addOption(new Option('--port <port>', 'the port to listen on (0: any free port)').argParser(parsePort).default(3000))
    .option('--host <address>', 'the address to listen on; beyond loopback a token is required', '127.0.0.1')
    .addOption(new Option('--concurrency <n>', 'worker actors running jobs at once').argParser(parseConcurrency).default(8))
    .option('--handlers <module>', 'a module exporting defineJob objects to run besides the built-in webhook delivery job')
    .addOption(new Option('--pool <pool=names:n...>', 'a worker pool of its own: its job names (comma-separated) run in n slots of their own, e.g. emails=send-email,notify:20; the names no pool lists share --concurrency').argParser(collectPool))
    .addOption(new Option('--token <token>', 'require Authorization: Bearer <token> on every route but /healthz and signed hooks (8 characters at least)').env(TOKEN_ENV).argParser(parseToken))
    .option('--hooks <file>', 'a JSON file of per-hook settings: { "<hook>": { secret, scheme, signatureHeader, keyHeader, headers, deliverTo, deliverSecret, job, signal } }; only its hooks are accepted')
    .option('--open-hooks', 'with --hooks, also accept a hook named after a job this server runs (--handlers) that the file does not list')
    .option('--allowed-host <host...>', 'Host header values answered besides the bound address, e.g. jobs.example.com (behind a proxy, or bound to 0.0.0.0)')
    .option('--deliver-to <url...>', 'URL prefixes the webhook job may send to besides the hooks\' deliverTo (a job\'s URL must be under one)')
    .option('--allow-private-targets', 'let the webhook job send to loopback and private addresses (refused by default)')
    .addOption(new Option('--max-connections <n>', 'connections open at once, at most; one more is closed at once').argParser(parseConnections).default(4096))
    .addOption(
      new Option('--max-connections-per-client <n>', 'connections open at once from one client address (behind a proxy: the proxy\'s pool)').argParser(parseConnections).default(256),
    )
    .option('--read-only', 'change nothing: run no jobs and fire no schedules, and over HTTP no actions, no enqueueing, no hooks (the dashboard says so); reads and the dashboard work')
    .addOption(new Option('--durability <mode>', 'normal: a commit survives a crash of the process; full: also of the machine').choices(['normal', 'full']).default('normal'))
    .action(async (flags: ServeFlags, self: Command) => {
      const path = databaseOf(self);
      const logger = serviceLogger(io);
      const jobs = flags.handlers ? await loadHandlers(flags.handlers) : [];
      // Loaded here, not at the top: fastify and undici would slow every other command's start.
      const { startService } = await import('../service.js');
      const service = await startService({
        path,
        host: flags.host,
        port: flags.port,
        concurrency: flags.concurrency,
        ...(flags.pool ? { pools: flags.pool } : {}),
        durability: flags.durability,
        jobs,
        logger,
        drainMs: 10_000,
        readOnly: flags.readOnly === true,
        allowedHosts: flags.allowedHost ?? [],
        openHooks: flags.openHooks === true,
        deliverTo: flags.deliverTo ?? [],
        allowPrivateTargets: flags.allowPrivateTargets === true,
        maxConnections: flags.maxConnections,
        maxConnectionsPerClient: flags.maxConnectionsPerClient,
        ...(flags.token ? { token: flags.token } : {}),
        ...(flags.hooks ? { hooks: readHooks(flags.hooks) } : {}),
      });
      logger.info({ url: service.server.url, db: isPostgres(path) ? withoutPassword(path) : path, jobs: ['webhook', ...jobs.map((j) => j.name).filter((n) => n !== 'webhook')] }, `litejobs serving on ${service.server.url}`);
      await service.closed;
    });
  document(cmd, {
    examples: ['litejobs serve --port 8080 --handlers ./handlers.js', 'LITEJOBS_TOKEN=s3cret litejobs serve --host 0.0.0.0 --hooks ./hooks.json'],
    exitCodes: [[ExitCode.failure, 'runtime error: the port is taken, a non-loopback --host without a token (LJ_ERR_UNSAFE_BIND), a handlers module that cannot be loaded, …']],
  });
}
