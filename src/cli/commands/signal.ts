/** `litejobs signal`: a message to a job that waits for it (queue.signal), by id or by its idempotency key. */
import { Argument, type InvalidArgumentError, type Command } from 'commander';
import { parseJobId, parseJson } from '../args.js';
import { document } from '../command-docs.js';
import { ExitCode } from '../exit-codes.js';
import { toJson } from '../format.js';
import type { CliIO } from '../io.js';
import { withQueue } from '../open-queue.js';

export function registerSignal(program: Command, io: CliIO): void {
  const signal = program
    .command('signal')
    .description(
      "Send a message on a topic to a job (any JSON; none is {}): a job waiting on the topic (ctx.waitFor) wakes now, otherwise the message waits in the job's mailbox for its next ctx.waitFor(topic). A finished job takes none.",
    )
    .addArgument(new Argument('<job>', 'the job id, or with --by-key the idempotency key it was enqueued with'))
    .argument('<topic>', 'the topic, e.g. paid')
    .addArgument(new Argument('[data]', 'the message, as JSON').argParser(parseJson))
    .option('--by-key', '<job> is the idempotency key of the job, not its id')
    .option('--json', 'print { id, woke } as JSON')
    .action(async (job: string, topic: string, data: unknown, flags: { byKey?: boolean; json?: boolean }, self: Command) => {
      let target: number | { key: string };
      try {
        target = flags.byKey ? { key: job } : parseJobId(job);
      } catch (err) {
        self.error(`error: argument 'job' is invalid. ${(err as InvalidArgumentError).message}`, { exitCode: ExitCode.usage, code: 'litejobs.usage' });
      }
      // No data is {} (queue.signal's rule, as an empty HTTP body's).
      const r = await withQueue(self, io, (queue) => queue.signal(target, topic, data));
      io.stdout.write(flags.json ? toJson(r) : `job ${r.id} ${r.woke ? 'woke' : 'keeps the message in its mailbox'}\n`);
    });
  document(signal, {
    examples: ["litejobs signal 42 paid '{\"status\":\"succeeded\"}'", "litejobs signal --by-key order:42 paid '{\"status\":\"succeeded\"}'"],
    exitCodes: [[ExitCode.failure, 'runtime error: no such job (LJ_ERR_JOB_NOT_FOUND), the job has finished (LJ_ERR_JOB_FINISHED), …']],
  });
}
