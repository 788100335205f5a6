/** `litejobs jobs`: one page of jobs as a table, and how to ask for the next. */
import { Option, type Command } from 'commander';
import type { Job } from '../../engine/core/job-view.js';
import { parseAfter, parseLimit } from '../args.js';
import { document } from '../command-docs.js';
import { formatRelative, table, toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { withQueue } from '../open-queue.js';

interface JobsFlags {
  state?: string;
  name?: string;
  limit: number;
  after?: number;
  newest?: boolean;
  json?: boolean;
}

export const DEFAULT_PAGE = 50;

export function registerJobs(program: Command, io: CliIO): void {
  const cmd = program
    .command('jobs')
    .description('List jobs in id order (or newest first), one page at a time.')
    .option('--state <state>', 'only jobs in this state (pending, processing, completed, failed, dead, cancelled)')
    .option('--name <name>', 'only jobs with this name')
    .addOption(new Option('--limit <n>', 'jobs per page (1 to 10000)').argParser(parseLimit).default(DEFAULT_PAGE))
    .addOption(new Option('--after <id>', 'start after this job id (the cursor the previous page printed)').argParser(parseAfter))
    .option('--newest', 'newest first: --after then pages towards older jobs')
    .option('--json', 'print the page as a JSON array of jobs')
    .action(async (flags: JobsFlags, self: Command) => {
      const filter = { limit: flags.limit, ...pick(flags, ['state', 'name', 'after', 'newest'] as const) };
      const jobs = await withQueue(self, io, (queue) => queue.listJobs(filter));
      if (flags.json) {
        io.stdout.write(toJson(jobs));
        return;
      }
      if (jobs.length === 0) {
        io.stdout.write(flags.after === undefined ? 'no jobs\n' : `no jobs ${flags.newest ? 'before' : 'after'} id ${flags.after}\n`);
        return;
      }
      io.stdout.write(renderJobs(jobs, Date.now()));
      if (jobs.length === flags.limit) io.stdout.write(`\nnext page: ${nextPageCommand(flags, jobs.at(-1)!.id, self.optsWithGlobals<{ db?: string }>().db)}\n`);
    });
  document(cmd, {
    examples: ['litejobs jobs --state dead --name send-email', 'litejobs jobs --newest --limit 20', 'litejobs jobs --limit 100 --after 4200 --json'],
  });
}

export function renderJobs(jobs: readonly Job[], now: number): string {
  return table(
    ['ID', 'NAME', 'STATE', 'ATTEMPTS', 'RUN AT', 'UPDATED', 'KEY'],
    jobs.map((j) => [String(j.id), j.name, j.state, String(j.attempts), formatRelative(j.runAt, now), formatRelative(j.updatedAt, now), j.key ?? '-']),
  );
}

/** `db`: the --db the command was given, kept so the hint lists the same database. */
function nextPageCommand(flags: JobsFlags, lastId: number, db: string | undefined): string {
  const parts = ['litejobs jobs'];
  if (db !== undefined) parts.push(`--db ${quote(db)}`);
  if (flags.state !== undefined) parts.push(`--state ${quote(flags.state)}`);
  if (flags.name !== undefined) parts.push(`--name ${quote(flags.name)}`);
  if (flags.limit !== DEFAULT_PAGE) parts.push(`--limit ${flags.limit}`);
  if (flags.newest) parts.push('--newest');
  parts.push(`--after ${lastId}`);
  return parts.join(' ');
}

/** A shell word: as it is when safe, else in single quotes. */
function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}
