/**
 * Opens the queue a command works on: `--db` (before or after the command
 * name), else $LITEJOBS_DB, else ./litejobs.db. Producer-only (never
 * started, so no workers), logging warnings only, and always closed before
 * the command ends.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { AnyJob } from '../engine/core/job-definition.js';
import type { Queue } from '../queue.js';
import { splitSchemaParam, type ConnectionTarget } from '../store/connection-url.js';
import { CliFailure } from './exit-codes.js';
import type { CliIO } from './io.js';
import { prettyLines } from './pretty-lines.js';

export const DEFAULT_DB = './litejobs.db';
export const DB_ENV = 'LITEJOBS_DB';

/** The database the command names: a SQLite file path, or a postgres:// URL. */
export function databaseOf(cmd: Command): string {
  return String(cmd.optsWithGlobals<{ db?: string }>().db ?? DEFAULT_DB);
}

export const isPostgres = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db);

/**
 * `createQueue`'s options for that database: `{ path }` for a file; for a URL
 * `{ connection }`, and `{ schema }` from its `?schema=` parameter (the driver
 * does not know that parameter, so it is taken off the URL).
 */
export function queueTarget(db: string): { path: string } | ConnectionTarget {
  if (!isPostgres(db)) return { path: db };
  const target = splitSchemaParam(db);
  if (target === null) throw new CliFailure(`--db ${db} is not a valid postgres:// URL`);
  return target;
}

/**
 * Runs `use` on the command's queue. `jobs`: definitions (or declarations)
 * the queue knows — what it reports about them, such as their limits, and
 * the schemas it validates payloads with — but never runs: the queue is not
 * started.
 */
export async function withQueue<T>(
  cmd: Command,
  io: CliIO,
  use: (queue: Queue, path: string) => Promise<T>,
  jobs: readonly AnyJob[] = [],
  /** Whether the command may create the SQLite file (it writes a job); any other needs it to exist, so a typo is not an empty queue. */
  creates = false,
): Promise<T> {
  const path = databaseOf(cmd);
  if (!creates && !isPostgres(path) && !existsSync(path)) {
    const { DatabaseError } = await import('../errors.js');
    throw new DatabaseError('LJ_ERR_DATABASE_OPEN', `database ${path} does not exist (give --db, or LITEJOBS_DB, the path of a litejobs file)`);
  }
  // Loaded here, not at the top: --help and usage errors answer without loading the engine.
  const [{ createQueue }, { pino }] = await Promise.all([import('../queue.js'), import('pino')]);
  const logger = pino({ level: process.env.LITEJOBS_LOG_LEVEL ?? 'warn' }, prettyLines(io.stderr));
  const queue = createQueue({ ...queueTarget(path), logger, jobs });
  try {
    return await use(queue, path);
  } finally {
    await queue.close();
  }
}
