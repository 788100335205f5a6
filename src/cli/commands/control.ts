/** Commands that change jobs or the queue: retry, cancel, pause, resume. */
import { Argument, type Command } from 'commander';
import type { Job } from '../../engine/core/job-view.js';
import { parseJobId } from '../args.js';
import { document } from '../command-docs.js';
import { ExitCode } from '../exit-codes.js';
import { toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { withQueue } from '../open-queue.js';

interface RetryFlags {
  dead?: boolean;
  name?: string;
  json?: boolean;
}

const NOT_FOUND_OR_ILLEGAL: readonly [number, string] = [
  ExitCode.failure,
  'runtime error: no job with this id (LJ_ERR_JOB_NOT_FOUND), the job is in a state the event does not apply to (LJ_ERR_INVALID_TRANSITION), …',
];

export function registerControl(program: Command, io: CliIO): void {
  registerRetry(program, io);
  registerCancel(program, io);
  registerPause(program, io, 'pause');
  registerPause(program, io, 'resume');
}

function registerRetry(program: Command, io: CliIO): void {
  const cmd = program
    .command('retry')
    .description('Send a dead job back to pending with a fresh set of attempts; with --dead, every dead job (of one name with --name).')
    .addArgument(new Argument('[id]', 'the id of a dead job').argParser(parseJobId))
    .option('--dead', 'retry every dead job instead of one')
    .option('--name <name>', 'with --dead: only dead jobs with this name')
    .option('--json', 'print the job (or { retried } with --dead) as JSON')
    .action(async (id: number | undefined, flags: RetryFlags, self: Command) => {
      if (id !== undefined && flags.dead) self.error('give a job id or --dead, not both', usage);
      if (id === undefined && !flags.dead) self.error("missing job id (or --dead to retry every dead job)", usage);
      if (flags.name !== undefined && !flags.dead) self.error('--name applies to --dead only', usage);
      if (id !== undefined) {
        const job = await withQueue(self, io, (queue) => queue.retry(id));
        io.stdout.write(flags.json ? toJson(job) : `job ${job.id} (${job.name}) is ${job.state} again, with a fresh set of attempts\n`);
        return;
      }
      const filter = flags.name === undefined ? {} : { name: flags.name };
      const retried = await withQueue(self, io, (queue) => queue.retryDead(filter));
      const what = `dead ${retried === 1 ? 'job' : 'jobs'}${flags.name === undefined ? '' : ` named ${flags.name}`}`;
      io.stdout.write(flags.json ? toJson({ retried }) : `${retried} ${what} back to pending\n`);
    });
  document(cmd, {
    examples: ['litejobs retry 42', 'litejobs retry --dead --name send-email'],
    exitCodes: [NOT_FOUND_OR_ILLEGAL, [ExitCode.usage, 'usage error: neither an id nor --dead (or both), --name without --dead, …']],
  });
}

function registerCancel(program: Command, io: CliIO): void {
  const cmd = program
    .command('cancel')
    .description('Cancel a job that has not finished; a running handler sees its signal abort.')
    .addArgument(new Argument('<id>', 'the job id').argParser(parseJobId))
    .option('--json', 'print the cancelled job as JSON')
    .action(async (id: number, flags: { json?: boolean }, self: Command) => {
      const job: Job = await withQueue(self, io, (queue) => queue.cancel(id));
      io.stdout.write(flags.json ? toJson(job) : `job ${job.id} (${job.name}) is ${job.state}\n`);
    });
  document(cmd, { examples: ['litejobs cancel 42'], exitCodes: [NOT_FOUND_OR_ILLEGAL] });
}

function registerPause(program: Command, io: CliIO, action: 'pause' | 'resume'): void {
  const cmd = program
    .command(action)
    .description(
      action === 'pause'
        ? 'Stop workers in every process from claiming jobs of this name (no name: the whole queue). Running jobs finish.'
        : 'Let workers claim jobs of this name again (no name: the whole queue).',
    )
    .argument('[name]', 'a job name (default: the whole queue)')
    .option('--json', 'print { action, name, paused } as JSON: `paused` is what is paused afterwards')
    .action(async (name: string | undefined, flags: { json?: boolean }, self: Command) => {
      const paused = await withQueue(self, io, async (queue) => {
        await (action === 'pause' ? queue.pause(name) : queue.resume(name));
        return (await queue.stats()).paused;
      });
      if (flags.json) {
        io.stdout.write(toJson({ action, name: name ?? null, paused }));
        return;
      }
      const what = name === undefined ? 'the whole queue' : `jobs named ${name}`;
      // Resuming one name while the whole queue stays paused runs nothing yet: say so.
      const still = action === 'resume' && paused.all ? ' (the whole queue is still paused: litejobs resume)' : '';
      io.stdout.write(`${action === 'pause' ? 'paused' : 'resumed'} ${what}${still}\n`);
    });
  document(cmd, { examples: action === 'pause' ? ['litejobs pause send-email', 'litejobs pause'] : ['litejobs resume send-email', 'litejobs resume'] });
}

const usage = { exitCode: ExitCode.usage, code: 'litejobs.usage' };
