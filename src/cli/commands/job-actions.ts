/** Commands that delete jobs or move them beside retry and cancel: rm, clean, run-again, promote, send. */
import { Argument, InvalidArgumentError, Option, type Command } from 'commander';
import { JobEventType } from '../../../machines/job.machine.js';
import { InvalidTransitionError } from '../../errors.js';
import { parseDuration } from '../../lib/duration.js';
import { parseDelay, parseJobId, parseJson, parsePriority } from '../args.js';
import { document } from '../command-docs.js';
import { CliFailure, ExitCode } from '../exit-codes.js';
import { toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { loadJobs } from '../load-handlers.js';
import { withQueue } from '../open-queue.js';

/** The events of the base machine: one outside them is a custom machine's. */
const BASE_EVENTS: ReadonlySet<string> = new Set(Object.values(JobEventType));

const NOT_FOUND_OR_ILLEGAL: readonly [number, string] = [
  ExitCode.failure,
  'runtime error: no job with this id (LJ_ERR_JOB_NOT_FOUND), the job is in a state the action does not apply to (LJ_ERR_INVALID_TRANSITION), …',
];

/** `--older-than`: an age ('7d', '12h', '30m') or an ISO 8601 date. */
function parseOlderThan(text: string): Date | string {
  try {
    parseDuration('--older-than', text);
    return text;
  } catch {
    const at = new Date(text);
    if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(at.getTime())) throw new InvalidArgumentError("give an age ('7d', '12h') or an ISO 8601 date.");
    return at;
  }
}

/** `--run-at`: an ISO 8601 date. */
function parseDate(text: string): Date {
  const at = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(at.getTime())) throw new InvalidArgumentError('give an ISO 8601 date, e.g. 2026-12-24T18:00:00Z.');
  return at;
}

function parseCount(text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('the limit must be a whole number from 1.');
  return n;
}

export function registerJobActions(program: Command, io: CliIO): void {
  const rm = program
    .command('rm')
    .description('Delete jobs with their history and steps. A running job is refused (cancel it first), and so is a flow child its parent still waits for.')
    .addArgument(new Argument('<ids...>', 'the ids of the jobs').argParser((text: string, prev: number[] = []) => [...prev, parseJobId(text)]))
    .option('--json', 'print { removed, skipped } as JSON')
    .action(async (ids: number[], flags: { json?: boolean }, self: Command) => {
      const outcome = await withQueue(self, io, (queue) => queue.remove(ids));
      if (flags.json) {
        io.stdout.write(toJson(outcome));
      } else {
        if (outcome.removed.length > 0) io.stdout.write(`removed ${outcome.removed.length === 1 ? 'job' : 'jobs'} ${outcome.removed.join(', ')}\n`);
        for (const s of outcome.skipped) io.stderr.write(`job ${s.id} left: ${s.code}: ${s.message}\n`);
      }
      if (outcome.skipped.length > 0) throw new CliFailure(`${outcome.skipped.length} of ${ids.length} jobs not removed`);
    });
  document(rm, { examples: ['litejobs rm 42', 'litejobs rm 42 43 44 --json'], exitCodes: [[ExitCode.failure, 'runtime error: some job could not be removed (each is listed on stderr with its code)']] });

  const clean = program
    .command('clean')
    .description('Delete every job of a state (and name) that has been in it longer than an age, or since before a date; not running jobs, nor unfinished flow children.')
    .addOption(new Option('--state <state>', 'the state: completed, dead, cancelled, pending, failed, …').makeOptionMandatory())
    .addOption(new Option('--older-than <age-or-date>', "an age ('7d', '12h') or an ISO 8601 date").argParser(parseOlderThan).makeOptionMandatory())
    .option('--name <name>', 'only jobs with this name')
    .addOption(new Option('--limit <n>', 'delete at most this many').argParser(parseCount))
    .option('--json', 'print { removed } as JSON')
    .action(async (flags: { state: string; olderThan: Date | string; name?: string; limit?: number; json?: boolean }, self: Command) => {
      const removed = await withQueue(self, io, (queue) =>
        queue.clean({ state: flags.state, olderThan: flags.olderThan, ...(flags.name === undefined ? {} : { name: flags.name }), ...(flags.limit === undefined ? {} : { limit: flags.limit }) }),
      );
      io.stdout.write(flags.json ? toJson({ removed }) : `removed ${removed} ${flags.state} ${removed === 1 ? 'job' : 'jobs'}${flags.name === undefined ? '' : ` named ${flags.name}`}\n`);
    });
  document(clean, {
    examples: ['litejobs clean --state completed --older-than 7d', 'litejobs clean --state dead --name send-email --older-than 2026-11-01'],
    exitCodes: [[ExitCode.failure, 'runtime error: a state that cannot be cleaned (processing: LJ_ERR_VALIDATION), …']],
  });

  for (const [name, description, verb] of [
    ['run-again', 'Run a completed or cancelled job again, with a fresh set of attempts (its history says job.rerun).', 'is pending again'],
    ['promote', 'Make a job that waits for its time due now: a delayed job, a retry waiting out its backoff, a sleeping job.', 'is due now'],
  ] as const) {
    const cmd = program
      .command(name)
      .description(description)
      .addArgument(new Argument('<id>', 'the job id').argParser(parseJobId))
      .option('--json', 'print the job as JSON')
      .action(async (id: number, flags: { json?: boolean }, self: Command) => {
        const job = await withQueue(self, io, (queue) => (name === 'promote' ? queue.promote(id) : queue.runAgain(id)));
        io.stdout.write(flags.json ? toJson(job) : `job ${job.id} (${job.name}) ${verb}: ${job.state}\n`);
      });
    document(cmd, { examples: [`litejobs ${name} 42`], exitCodes: [NOT_FOUND_OR_ILLEGAL] });
  }

  const update = program
    .command('update')
    .description("Change a pending job's priority, run time or payload (validated by its schema with --handlers); its history says job.update.")
    .addArgument(new Argument('<id>', 'the job id').argParser(parseJobId))
    .addOption(new Option('--priority <n>', 'the new priority (higher runs first)').argParser(parsePriority))
    .addOption(new Option('--delay <duration>', 'run no sooner than this from now: ms, or 5s, 2m, 1h').argParser(parseDelay))
    .addOption(new Option('--run-at <date>', 'run no sooner than this ISO 8601 date').argParser(parseDate))
    .addOption(new Option('--payload <json>', 'the new payload, as JSON').argParser(parseJson))
    .option('--handlers <module>', "a module exporting the job's defineJob or declareJob: its schema validates the payload")
    .option('--json', 'print the job as JSON')
    .action(async (id: number, flags: { priority?: number; delay?: number; runAt?: Date; payload?: unknown; handlers?: string; json?: boolean }, self: Command) => {
      const changes = {
        ...(flags.priority === undefined ? {} : { priority: flags.priority }),
        ...(flags.delay === undefined ? {} : { delay: flags.delay }),
        ...(flags.runAt === undefined ? {} : { runAt: flags.runAt }),
        ...(flags.payload === undefined ? {} : { payload: flags.payload }),
      };
      if (Object.keys(changes).length === 0) self.error('give at least one of --priority, --delay, --run-at, --payload', { exitCode: ExitCode.usage, code: 'litejobs.usage' });
      if (flags.delay !== undefined && flags.runAt !== undefined) self.error('give --delay or --run-at, not both', { exitCode: ExitCode.usage, code: 'litejobs.usage' });
      const jobs = flags.handlers === undefined ? [] : await loadJobs(flags.handlers, { declarations: true });
      const job = await withQueue(self, io, (queue) => queue.update(id, changes), jobs);
      io.stdout.write(flags.json ? toJson(job) : `job ${job.id} (${job.name}) updated: priority ${job.priority}, runs at ${job.runAt.toISOString()}\n`);
    });
  document(update, { examples: ['litejobs update 42 --priority 10', "litejobs update 42 --delay 1h --payload '{\"to\":\"ada@example.com\"}'"], exitCodes: [NOT_FOUND_OR_ILLEGAL] });

  const send = program
    .command('send')
    .description("Send a job an event its machine accepts now (job.cancel, job.retry, a custom machine's job.approve …); without an event, list the ones it accepts.")
    .addArgument(new Argument('<id>', 'the job id').argParser(parseJobId))
    .argument('[event]', 'the event type, e.g. job.approve')
    .addOption(new Option('--data <json>', "the event's other fields, as a JSON object").argParser(parseJson))
    .option('--handlers <module>', "a module exporting the job's defineJob (its handlers are not run): a job on a machine of its own needs it, so that its machine decides")
    .option('--json', 'print the job (or the accepted events) as JSON')
    .action(async (id: number, event: string | undefined, flags: { data?: unknown; handlers?: string; json?: boolean }, self: Command) => {
      if (flags.data !== undefined && (typeof flags.data !== 'object' || flags.data === null || Array.isArray(flags.data))) {
        self.error('--data must be a JSON object', { exitCode: ExitCode.usage, code: 'litejobs.usage' });
      }
      const jobs = flags.handlers === undefined ? [] : await loadJobs(flags.handlers, { declarations: false });
      if (event === undefined) {
        const accepted = await withQueue(self, io, (queue) => queue.acceptedEvents(id), jobs);
        io.stdout.write(flags.json ? toJson({ events: accepted }) : `${accepted.length === 0 ? `job ${id} accepts no event now` : accepted.join('\n')}\n`);
        return;
      }
      const job = await withQueue(
        self,
        io,
        async (queue) => {
          try {
            return await queue.send(id, { ...(flags.data as Record<string, unknown> | undefined), type: event });
          } catch (err) {
            // An event the base machine does not know, decided by it: the job's own machine was never loaded.
            if (err instanceof InvalidTransitionError && jobs.length === 0 && !BASE_EVENTS.has(event)) {
              throw new InvalidTransitionError(err.jobId, err.state, err.event, 'the base machine decided: a job on a machine of its own needs --handlers <module>');
            }
            throw err;
          }
        },
        jobs,
      );
      io.stdout.write(flags.json ? toJson(job) : `job ${job.id} (${job.name}) is ${job.state}\n`);
    });
  document(send, { examples: ['litejobs send 42 --handlers ./jobs.js', 'litejobs send 42 job.approve --handlers ./jobs.js'], exitCodes: [NOT_FOUND_OR_ILLEGAL] });
}
