/**
 * `litejobs set-limits <name>`: a job name's limits changed while the queue
 * runs (queue.setLimits), over its definitions'; every started queue takes
 * the change up within a second. `--reset` gives the name back to its
 * definitions (queue.resetLimits).
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { NameLimitView } from '../../engine/actions/limits-view.js';
import type { LimitChanges } from '../../engine/core/live-limits.js';
import { document } from '../command-docs.js';
import { CliFailure, ExitCode } from '../exit-codes.js';
import { printable, toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { withQueue } from '../open-queue.js';
import { dash, parseGroupConcurrency, rate } from './limits.js';

interface SetLimitsFlags {
  rate?: LimitChanges['rateLimit'];
  perGroup?: boolean;
  globalConcurrency?: number | null;
  groupConcurrency?: number | null;
  reset?: boolean;
  json?: boolean;
}

/** `<max>/<window>` (100/1s, 5/500ms, 20/60000), or none: the engine checks the numbers as defineJob does. */
export function parseRate(text: string): LimitChanges['rateLimit'] {
  if (text.trim().toLowerCase() === 'none') return null;
  const m = /^\s*(\d{1,7})\s*\/\s*(\S{1,32})\s*$/.exec(text);
  if (!m) throw new InvalidArgumentError('give the rate as <max>/<window> (100/1s, 5/500ms, 20/60000), or none.');
  return { max: Number(m[1]), per: /^\d+$/.test(m[2]!) ? Number(m[2]) : m[2]! };
}

export function registerSetLimits(program: Command, io: CliIO): void {
  const cmd = program
    .command('set-limits')
    .description(
      "Change a job name's limits while the queue runs, in every process, over its job definitions' (which stay as they are in code): " +
        'every started queue takes the change up within a second, and a process that starts later too. A limit not given is left as it is; none turns one off. ' +
        "--reset gives the name back to its definitions' limits.",
    )
    .argument('<name>', 'the job name')
    .option('--rate <max/window>', 'at most <max> starts in any <window> (100/1s, 5/500ms, 20/60000), in every process; none: no rate limit', parseRate)
    .option('--per-group', 'with --rate: one bucket per concurrency group instead of one for the name')
    .option('--global-concurrency <n>', 'jobs of this name running at once in every process (1 to 1000000); none: no such limit', parseGroupConcurrency)
    .option('--group-concurrency <n>', "jobs of one group running at once, for this name's jobs (1 to 1000000; a group's own setting wins); none: no such limit", parseGroupConcurrency)
    .option('--reset', "undo every change: the job definitions' limits apply again")
    .option('--json', "print the name's limits as they now stand as JSON")
    .action(async (name: string, flags: SetLimitsFlags, self: Command) => {
      const changes: LimitChanges = {};
      if (flags.rate !== undefined) changes.rateLimit = flags.rate === null ? null : { ...flags.rate, ...(flags.perGroup ? { perGroup: true } : {}) };
      if (flags.globalConcurrency !== undefined) changes.globalConcurrency = flags.globalConcurrency;
      if (flags.groupConcurrency !== undefined) changes.groupConcurrency = flags.groupConcurrency;
      if (flags.perGroup && !changes.rateLimit) throw new CliFailure('--per-group goes with a --rate', ExitCode.usage);
      if (flags.reset && Object.keys(changes).length > 0) throw new CliFailure('--reset changes nothing else: give it alone', ExitCode.usage);
      if (!flags.reset && Object.keys(changes).length === 0) throw new CliFailure('give a limit to change (--rate, --global-concurrency, --group-concurrency) or --reset', ExitCode.usage);
      const view = await withQueue(self, io, (queue) => (flags.reset ? queue.resetLimits(name) : queue.setLimits(name, changes)));
      io.stdout.write(flags.json ? toJson(view) : renderNameLimits(view));
    });
  document(cmd, {
    examples: ['litejobs set-limits email --rate 50/1s', 'litejobs set-limits report --global-concurrency 1 --rate none', 'litejobs set-limits email --reset'],
    exitCodes: [[ExitCode.usage, 'usage error: no limit given, a rate that is not <max>/<window>, a concurrency that is not 1 to 1000000 or none, an unknown window (LJ_ERR_VALIDATION), …']],
  });
}

/** One line: the limits in force for the name, and which of them were changed while the queue runs. */
export function renderNameLimits(view: NameLimitView): string {
  const changed = view.changed ? Object.keys(view.changed) : [];
  const note = changed.length === 0 ? "its job definitions' limits" : `changed: ${changed.map((f) => f.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)).join(', ')}`;
  return `${printable(view.name)}: rate ${rate(view.rateLimit)}, global concurrency ${dash(view.globalConcurrency)}, group concurrency ${dash(view.groupConcurrency)} (${note}; every started queue takes it up within a second)\n`;
}
