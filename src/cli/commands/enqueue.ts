/** `litejobs enqueue <name> <json>`: adds one job. */
import { Argument, Option, type Command } from 'commander';
import type { EnqueueOptions } from '../../engine/core/options.js';
import type { UniqueWhile } from '../../engine/core/unique.js';
import { parseDelay, parseJson, parsePriority } from '../args.js';
import { document } from '../command-docs.js';
import { ExitCode } from '../exit-codes.js';
import { toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { loadJobs } from '../load-handlers.js';
import { withQueue } from '../open-queue.js';

interface EnqueueFlags {
  key?: string;
  delay?: number;
  priority?: number;
  lifo?: boolean;
  uniqueKey?: string;
  uniqueWhile?: UniqueWhile;
  debounceKey?: string;
  debounce?: number;
  throttleKey?: string;
  throttle?: number;
  group?: string;
  handlers?: string;
  json?: boolean;
}

/** The unique, debounce or throttle option the flags ask for; a flag without its partner is a usage error. */
function guardOptions(flags: EnqueueFlags, fail: (message: string) => never): EnqueueOptions {
  const options: EnqueueOptions = {};
  if (flags.uniqueWhile !== undefined && flags.uniqueKey === undefined) fail('--unique-while needs --unique-key');
  if (flags.uniqueKey !== undefined) options.unique = { key: flags.uniqueKey, while: flags.uniqueWhile ?? 'until-finished' };
  for (const kind of ['debounce', 'throttle'] as const) {
    const key = flags[`${kind}Key`];
    const ms = flags[kind];
    if ((key === undefined) !== (ms === undefined)) fail(`--${kind}-key and --${kind} go together`);
    if (key !== undefined) options[kind] = { key, ms: ms! };
  }
  return options;
}

export function registerEnqueue(program: Command, io: CliIO): void {
  const cmd = program
    .command('enqueue')
    .description(
      'Enqueue a job. With --key, a job already enqueued under the same key is returned instead of a new one; ' +
        'with --unique-key, --debounce-key or --throttle-key, only while that key is held (docs/guides/unique-jobs.md).',
    )
    .argument('<name>', 'the job name')
    .addArgument(new Argument('<json>', 'the payload, as JSON').argParser(parseJson))
    .option('--key <key>', 'idempotency key: at most one job per key')
    .addOption(new Option('--delay <duration>', 'run no sooner than this from now: ms, or 500ms, 5s, 2m, 1h, 7d').argParser(parseDelay))
    .addOption(new Option('--priority <n>', 'higher runs first').argParser(parsePriority).default(0))
    .option('--lifo', 'last in, first out: claimed before every job already waiting at its priority')
    .option('--unique-key <key>', 'unique key: while a job with this key is in the --unique-while states, that job is returned instead')
    .addOption(new Option('--unique-while <states>', 'how long --unique-key is held').choices(['pending', 'active', 'until-finished']))
    .option('--debounce-key <key>', 'debounce key: a job still pending under this key takes this payload and runs --debounce from now')
    .addOption(new Option('--debounce <duration>', 'the debounce window: ms, or 500ms, 5s, 2m, 1h').argParser(parseDelay))
    .option('--throttle-key <key>', 'throttle key: within --throttle of the first job under this key, that job is returned instead')
    .addOption(new Option('--throttle <duration>', 'the throttle window: ms, or 500ms, 5s, 2m, 1h').argParser(parseDelay))
    .option('--group <group>', "concurrency group (e.g. customer:42): at most the job definition's groupConcurrency (or the group's own, litejobs group-concurrency) of its jobs run at once")
    .option('--handlers <module>', "a module exporting defineJob (or declareJob) objects: a job's schema validates the payload, and the schema's output is stored (their handlers are not run)")
    .option('--json', 'print { id, created } as JSON')
    .action(async (name: string, payload: unknown, flags: EnqueueFlags, self: Command) => {
      const options: EnqueueOptions = guardOptions(flags, (message) => self.error(message, { exitCode: ExitCode.usage, code: 'litejobs.usage' }));
      if (flags.key !== undefined) options.key = flags.key;
      if (flags.delay !== undefined) options.delay = flags.delay;
      if (flags.group !== undefined) options.group = flags.group;
      if (flags.priority !== undefined && flags.priority !== 0) options.priority = flags.priority;
      if (flags.lifo === true) options.lifo = true;
      const jobs = flags.handlers === undefined ? [] : await loadJobs(flags.handlers, { declarations: true });
      const result = await withQueue(self, io, (queue) => queue.enqueue(name, payload, options), jobs, true);
      if (flags.json) io.stdout.write(toJson({ id: result.id, created: result.created }));
      else if (result.created) io.stdout.write(`job ${result.id} created\n`);
      else io.stdout.write(`job ${result.id} already enqueued under key ${JSON.stringify(flags.key ?? flags.uniqueKey ?? flags.debounceKey ?? flags.throttleKey)}: not created\n`);
    });
  document(cmd, {
    examples: [
      `litejobs enqueue send-email '{"to":"ada@example.com"}' --key welcome:ada --delay 5m`,
      `litejobs enqueue reindex '{"doc":42}' --unique-key reindex:42 --unique-while pending`,
      `litejobs enqueue sync-user '{"id":7}' --debounce-key sync:7 --debounce 2s`,
      `litejobs enqueue sync-customer '{"id":42}' --group customer:42`,
      `litejobs enqueue send-email '{"to":"ada@example.com"}' --handlers ./jobs.js`,
    ],
    exitCodes: [[ExitCode.usage, "usage error: unknown option, invalid argument, or a payload the job's schema refuses (LJ_ERR_INVALID_PAYLOAD: one line per issue follows)"]],
  });
}
