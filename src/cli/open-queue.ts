/**
 * Opens the queue a command works on: `--db` (before or after the command
 * name), else $LITEJOBS_DB, else ./litejobs.db. Producer-only (no jobs, so no
 * workers), logging warnings only, and always closed before the command ends.
 */
import type { Command } from 'commander';
import type { Queue } from '../queue.js';
import { CliFailure } from './exit-codes.js';
import type { CliIO } from './io.js';
import { prettyLines } from './pretty-lines.js';

export const DEFAULT_DB = './litejobs.db';
export const DB_ENV = 'LITEJOBS_DB';

/** The database the command names, refusing what this version cannot open. */
export function databaseOf(cmd: Command): string {
  const db = String(cmd.optsWithGlobals<{ db?: string }>().db ?? DEFAULT_DB);
  if (/^postgres(ql)?:\/\//i.test(db)) {
    throw new CliFailure('the PostgreSQL store is not available in this version of litejobs; give --db a SQLite file path');
  }
  return db;
}

export async function withQueue<T>(cmd: Command, io: CliIO, use: (queue: Queue, path: string) => Promise<T>): Promise<T> {
  const path = databaseOf(cmd);
  // Loaded here, not at the top: --help and usage errors answer without loading the engine.
  const [{ createQueue }, { pino }] = await Promise.all([import('../queue.js'), import('pino')]);
  const logger = pino({ level: process.env.LITEJOBS_LOG_LEVEL ?? 'warn' }, prettyLines(io.stderr));
  const queue = createQueue({ path, logger });
  try {
    return await use(queue, path);
  } finally {
    await queue.close();
  }
}
