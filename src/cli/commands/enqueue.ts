/** `litejobs enqueue <name> <json>`: adds one job. */
import { Argument, Option, type Command } from 'commander';
import type { EnqueueOptions } from '../../engine/options.js';
import { parseDelay, parseJson, parsePriority } from '../args.js';
import { document } from '../command-docs.js';
import { toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { withQueue } from '../open-queue.js';

interface EnqueueFlags {
  key?: string;
  delay?: number;
  priority?: number;
  json?: boolean;
}

export function registerEnqueue(program: Command, io: CliIO): void {
  const cmd = program
    .command('enqueue')
    .description('Enqueue a job. With --key, a job already enqueued under the same key is returned instead of a new one.')
    .argument('<name>', 'the job name')
    .addArgument(new Argument('<json>', 'the payload, as JSON').argParser(parseJson))
    .option('--key <key>', 'idempotency key: at most one job per key')
    .addOption(new Option('--delay <duration>', 'run no sooner than this from now: ms, or 500ms, 5s, 2m, 1h, 7d').argParser(parseDelay))
    .addOption(new Option('--priority <n>', 'higher runs first').argParser(parsePriority).default(0))
    .option('--json', 'print { id, created } as JSON')
    .action(async (name: string, payload: unknown, flags: EnqueueFlags, self: Command) => {
      const options: EnqueueOptions = {};
      if (flags.key !== undefined) options.key = flags.key;
      if (flags.delay !== undefined) options.delay = flags.delay;
      if (flags.priority !== undefined && flags.priority !== 0) options.priority = flags.priority;
      const result = await withQueue(self, io, (queue) => queue.enqueue(name, payload, options));
      if (flags.json) io.stdout.write(toJson({ id: result.id, created: result.created }));
      else if (result.created) io.stdout.write(`job ${result.id} created\n`);
      else io.stdout.write(`job ${result.id} already enqueued under key ${JSON.stringify(flags.key)}: not created\n`);
    });
  document(cmd, {
    examples: [`litejobs enqueue send-email '{"to":"ada@example.com"}' --key welcome:ada --delay 5m`],
  });
}
