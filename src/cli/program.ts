/**
 * The `litejobs` command tree. buildProgram() returns commander's Command
 * without running anything, for bin.ts, the tests and the docs generator
 * (docs/tools/generate-cli-docs.ts). Each command group registers itself:
 * a new group is one more entry in COMMAND_REGISTRARS.
 */
import { Command, Option } from 'commander';
import { registerBackup } from './commands/backup.js';
import { registerControl } from './commands/control.js';
import { registerJobActions } from './commands/job-actions.js';
import { registerSignal } from './commands/signal.js';
import { registerDemo } from './commands/demo.js';
import { registerDiagram } from './commands/diagram.js';
import { registerDoctor } from './commands/doctor.js';
import { registerEnqueue } from './commands/enqueue.js';
import { registerJob } from './commands/job.js';
import { registerJobs } from './commands/jobs.js';
import { registerLimits } from './commands/limits.js';
import { registerSetLimits } from './commands/set-limits.js';
import { registerMigrate } from './commands/migrate.js';
import { registerServe } from './commands/serve.js';
import { registerSchedules } from './commands/schedules.js';
import { registerStats } from './commands/stats.js';
import { describeFailure, errorLine } from './exit-codes.js';
import { processIO, type CliIO } from './io.js';
import { DB_ENV, DEFAULT_DB } from './open-queue.js';
import { packageVersion } from '../lib/package-version.js';

/** Adds one group of commands to the program (`program.command(…)`, so they inherit its output and exit handling). */
export type CommandRegistrar = (program: Command, io: CliIO) => void;

export const COMMAND_REGISTRARS: readonly CommandRegistrar[] = [
  registerServe,
  registerDemo,
  registerEnqueue,
  registerJobs,
  registerJob,
  registerStats,
  registerSchedules,
  registerLimits,
  registerSetLimits,
  registerControl,
  registerJobActions,
  registerSignal,
  registerBackup,
  registerMigrate,
  registerDiagram,
  registerDoctor,
];

/**
 * The command tree, unparsed. `io` is where commands write (default: the process's streams).
 *
 * @example
 * const program = buildProgram();
 * program.commands.map((c) => c.name()); // ['enqueue', 'jobs', 'job', 'stats', …]
 */
export function buildProgram(io: CliIO = processIO(), registrars: readonly CommandRegistrar[] = COMMAND_REGISTRARS): Command {
  const program = new Command('litejobs')
    .description('Inspect and control a litejobs queue: enqueue, list, retry, cancel, pause, back up, check.')
    .addOption(new Option('--db <path>', 'the queue: a SQLite file, or a PostgreSQL URL (postgres://user@host/db?schema=litejobs); before or after the command name. Only enqueue, serve and demo create a missing file').env(DB_ENV).default(DEFAULT_DB))
    .version(packageVersion(), '-V, --version', 'print the litejobs version')
    .helpCommand(false)
    .showSuggestionAfterError(true)
    // Usage errors come back as CommanderError (runCli maps them to exit 2), each on one line.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
      outputError: (text, write) => write(errorLine(text)),
    });
  for (const register of registrars) register(program, io);
  return program;
}

/**
 * Runs one command line (without the node and script arguments); resolves
 * with the exit code. Failures are written to `io.stderr`, never thrown.
 *
 * @example
 * process.exitCode = await runCli(['stats', '--db', './app.db', '--json']);
 */
export async function runCli(argv: readonly string[], io: CliIO = processIO(), registrars?: readonly CommandRegistrar[]): Promise<number> {
  const program = buildProgram(io, registrars);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    const { exitCode, line } = describeFailure(err);
    if (line) io.stderr.write(line);
    return exitCode;
  }
}
