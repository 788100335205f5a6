/**
 * `litejobs backup <dest>`: an online copy of the database (writers go on
 * meanwhile), a progress bar on a terminal, and the copy's size and job count.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Command } from 'commander';
import { document } from '../command-docs.js';
import { CliFailure, ExitCode } from '../exit-codes.js';
import { formatBytes, toJson } from '../format.js';
import type { CliIO, OutStream } from '../io.js';
import { databaseOf, isPostgres, withQueue } from '../open-queue.js';

interface BackupFlags {
  force?: boolean;
  json?: boolean;
}

export function registerBackup(program: Command, io: CliIO): void {
  const cmd = program
    .command('backup')
    .description('Copy the database to <dest> while it is in use: the copy holds every job committed before the backup began.')
    .argument('<dest>', 'the file to write (refused if it exists, unless --force)')
    .option('--force', 'overwrite <dest> if it exists')
    .option('--json', 'print { destination, bytes, jobs } as JSON')
    .action(async (dest: string, flags: BackupFlags, self: Command) => {
      const db = databaseOf(self);
      if (isPostgres(db)) throw new CliFailure('a PostgreSQL queue is backed up with pg_dump (pg_dump --schema=litejobs <database>), not litejobs backup');
      checkDestination(db, dest, flags.force === true);
      const bar = io.stderr.isTTY ? progressBar(io.stderr) : undefined;
      try {
        await withQueue(self, io, (queue) => queue.backup(dest, bar ? { onProgress: bar.update } : undefined));
        bar?.end();
      } catch (err) {
        bar?.end(true); // the error line goes below the bar, not onto it
        throw err;
      }
      const summary = { destination: resolve(dest), bytes: statSync(dest).size, jobs: countJobs(dest) };
      io.stdout.write(
        flags.json ? toJson(summary) : `backup written to ${dest}: ${formatBytes(summary.bytes)}, ${summary.jobs} ${summary.jobs === 1 ? 'job' : 'jobs'}\n`,
      );
    });
  document(cmd, {
    examples: ['litejobs backup ./backups/jobs-2026-11-03.db', 'litejobs --db /var/lib/app/jobs.db backup /mnt/backup/jobs.db --force'],
    exitCodes: [[ExitCode.failure, 'runtime error: <dest> exists (without --force) or is the database itself, cannot be written, …']],
  });
}

function checkDestination(db: string, dest: string, force: boolean): void {
  if (!existsSync(dest)) return;
  if (existsSync(db) && realpathSync(db) === realpathSync(dest)) throw new CliFailure(`${dest} is the database itself`);
  if (!force) throw new CliFailure(`${dest} exists: choose another file, or --force to overwrite it`);
}

/**
 * Counted in the copy itself, so the number is what the backup holds. Read
 * and write, because closing such a connection removes the -wal and -shm
 * files a WAL-mode file gets when opened: the copy stays one file.
 */
function countJobs(path: string): number {
  const db = new Database(path, { fileMustExist: true });
  try {
    return db.prepare('SELECT count(*) FROM jobs').pluck().get() as number;
  } finally {
    db.close();
  }
}

const BAR_WIDTH = 30;

function progressBar(out: OutStream): { update(p: { totalPages: number; remainingPages: number }): void; end(failed?: boolean): void } {
  let total: number | undefined;
  let remaining = 0;
  const draw = (totalPages: number, remainingPages: number) => {
    const fraction = totalPages > 0 ? (totalPages - remainingPages) / totalPages : 1;
    const filled = Math.round(fraction * BAR_WIDTH);
    out.write(`\r[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}% of ${totalPages} pages`);
  };
  return {
    update({ totalPages, remainingPages }) {
      total = totalPages;
      remaining = remainingPages;
      draw(totalPages, remainingPages);
    },
    /** Progress is reported between steps only: the end of the last one is drawn here (unless the copy failed). */
    end(failed = false) {
      if (total === undefined) return;
      draw(total, failed ? remaining : 0);
      out.write('\n');
    },
  };
}
