/**
 * Exit codes and the one line on stderr that explains a failure:
 * 0 ok, 1 runtime error, 2 usage error. No stack traces: the error's code and
 * message say what went wrong. A payload a job's schema refused adds one
 * indented line per issue, as a reader fixes them one by one.
 */
import { CommanderError } from 'commander';
import { LitejobsError, PayloadValidationError, ValidationError } from '../errors.js';
import { printable } from './format.js';

export const ExitCode = { ok: 0, failure: 1, usage: 2 } as const;

/** The exit codes every command shares, in the words the docs and `--help` use. */
export const COMMON_EXIT_CODES: ReadonlyArray<readonly [number, string]> = [
  [ExitCode.ok, 'success'],
  [ExitCode.failure, 'runtime error (the database cannot be opened, …); the message names the error code'],
  [ExitCode.usage, 'usage error: unknown command or option, missing or invalid argument'],
];

/** A failure the command has already explained (or explains in `message`), with its exit code. */
export class CliFailure extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = ExitCode.failure) {
    super(message);
    this.name = 'CliFailure';
    this.exitCode = exitCode;
  }
}


const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ').trim();

/** `litejobs: error: …` on one line, whatever the message holds. */
export function errorLine(message: string): string {
  return `litejobs: error: ${printable(oneLine(message.replace(/^error: /, '')))}\n`;
}

/**
 * The exit code for an error, and the line to print (undefined when commander
 * has printed it already through the program's outputError).
 */
export function describeFailure(err: unknown): { exitCode: number; line?: string } {
  if (err instanceof CommanderError) {
    // Help and version end through here too, with exit code 0.
    return { exitCode: err.exitCode === 0 ? ExitCode.ok : ExitCode.usage };
  }
  if (err instanceof CliFailure) return { exitCode: err.exitCode, line: errorLine(err.message) };
  if (err instanceof PayloadValidationError) {
    const issues = err.issues.map((issue) => `  ${issue.path && issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${oneLine(issue.message)}\n`);
    return { exitCode: ExitCode.usage, line: errorLine(`${err.code}: ${err.message}`) + issues.join('') };
  }
  if (err instanceof LitejobsError) {
    // Bad input the engine refused (an empty name, a payload over the limit) is a usage error.
    const exitCode = err instanceof ValidationError ? ExitCode.usage : ExitCode.failure;
    return { exitCode, line: errorLine(`${err.code}: ${err.message}`) };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { exitCode: ExitCode.failure, line: errorLine(message) };
}
