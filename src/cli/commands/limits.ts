/**
 * `litejobs limits`: the limited job names and the busiest concurrency
 * groups; `litejobs group-concurrency`: a group's own concurrency;
 * `litejobs set-limits`: a job name's limits changed while the queue runs.
 */
import { Argument, InvalidArgumentError, type Command } from 'commander';
import type { GroupView, LimitsView, NameLimitView } from '../../engine/actions/limits-view.js';
import { document } from '../command-docs.js';
import { ExitCode } from '../exit-codes.js';
import { formatDuration, formatRelative, formatTime, table, toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { loadHandlers } from '../load-handlers.js';
import { withQueue } from '../open-queue.js';

export function registerLimits(program: Command, io: CliIO): void {
  registerLimitsView(program, io);
  registerGroupConcurrency(program, io);
}

function registerLimitsView(program: Command, io: CliIO): void {
  const cmd = program
    .command('limits')
    .description(
      'Show the limited job names and the busiest concurrency groups as every process sees them now. ' +
        'Names: groupConcurrency, globalConcurrency, rateLimit, jobs running, rate-limit tokens left, paused until (a handler\'s RateLimitedError). ' +
        "Groups (most running, then pending, first): jobs pending and running, the group's own concurrency (- when the definitions' groupConcurrency applies), paused until.",
    )
    .option('--handlers <module>', "a module exporting the defineJob objects whose limits to show (their handlers are not run); without it, only names with a stored rate-limit bucket or pause are listed, without their settings")
    .option('--json', 'print { names, groups } as JSON')
    .action(async (flags: { handlers?: string; json?: boolean }, self: Command) => {
      const jobs = flags.handlers ? await loadHandlers(flags.handlers) : [];
      const view = await withQueue(self, io, (queue) => queue.limits(), jobs);
      io.stdout.write(flags.json ? toJson(view) : renderLimits(view, Date.now(), flags.handlers !== undefined));
    });
  document(cmd, {
    examples: ['litejobs limits --handlers ./handlers.js', 'litejobs limits --json'],
    exitCodes: [[ExitCode.failure, 'runtime error: a handlers module that cannot be loaded, the database cannot be opened, …']],
  });
}

/** `none` clears the setting; otherwise an integer from 1 to 1,000,000. */
export function parseGroupConcurrency(text: string): number | null {
  if (text.trim().toLowerCase() === 'none') return null;
  const n = /^\+?\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > 1_000_000) throw new InvalidArgumentError('the concurrency must be an integer from 1 to 1000000, or none.');
  return n;
}

function registerGroupConcurrency(program: Command, io: CliIO): void {
  const cmd = program
    .command('group-concurrency')
    .description(
      "Set how many jobs of a group may run at once in every process, over the job definitions' groupConcurrency; none removes the setting. " +
        'Stored in the database: claims follow it from their next transaction.',
    )
    .argument('<group>', 'the concurrency group, as enqueued (e.g. customer:42)')
    .addArgument(new Argument('<n|none>', 'jobs of the group running at once (1 to 1000000), or none').argParser(parseGroupConcurrency))
    .option('--json', 'print { group, concurrency } as JSON')
    .action(async (group: string, concurrency: number | null, flags: { json?: boolean }, self: Command) => {
      await withQueue(self, io, (queue) => queue.setGroupConcurrency(group, concurrency));
      if (flags.json) io.stdout.write(toJson({ group, concurrency }));
      else if (concurrency === null) io.stdout.write(`group ${group}: own concurrency removed (the job definitions' groupConcurrency applies)\n`);
      else io.stdout.write(`group ${group}: at most ${concurrency} ${concurrency === 1 ? 'job' : 'jobs'} at once\n`);
    });
  document(cmd, {
    examples: ['litejobs group-concurrency customer:42 3', 'litejobs group-concurrency customer:42 none'],
    exitCodes: [[ExitCode.usage, 'usage error: a concurrency that is not an integer from 1 to 1000000 or none, an empty group or one with a NUL (LJ_ERR_VALIDATION), …']],
  });
}

export const dash = (value: number | null): string => (value === null ? '-' : String(value));
const until = (at: Date | null, now: number): string => (at === null ? '-' : `${formatTime(at)} (${formatRelative(at, now)})`);

export function rate(limit: NameLimitView['rateLimit']): string {
  if (limit === null) return '-';
  return `${limit.max} per ${formatDuration(limit.perMs)}${limit.perGroup ? ' per group' : ''}`;
}

export function renderLimits(view: LimitsView, now: number, withDefinitions: boolean): string {
  const names =
    view.names.length === 0
      ? `no limited names${withDefinitions ? '' : ' stored (give --handlers to list the limits your job definitions set)'}\n`
      : table(
          ['NAME', 'GROUP CONC.', 'GLOBAL CONC.', 'RATE', 'RUNNING', 'TOKENS LEFT', 'PAUSED UNTIL'],
          view.names.map((n) => [n.name, dash(n.groupConcurrency), dash(n.globalConcurrency), rate(n.rateLimit), String(n.running), dash(n.tokensLeft), until(n.pausedUntil, now)]),
        );
  const groups =
    view.groups.length === 0
      ? 'no groups with jobs pending or running\n'
      : table(
          ['GROUP', 'PENDING', 'RUNNING', 'CONCURRENCY', 'PAUSED UNTIL'],
          view.groups.map((g: GroupView) => [g.group, String(g.pending), String(g.running), dash(g.concurrency), until(g.pausedUntil, now)]),
        );
  return `limited names\n${names}\ngroups\n${groups}`;
}
