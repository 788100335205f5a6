/**
 * What `--help` and docs/reference/cli.md say beyond commander's own
 * definitions: examples and exit codes. Recorded once per command, so the
 * help text and the generated page cannot say different things.
 */
import type { Command } from 'commander';
import { COMMON_EXIT_CODES } from './exit-codes.js';

export interface CommandDocs {
  /** Command lines, each as a user types it. */
  examples: readonly string[];
  /** Exit codes beyond the common ones, or a command's own wording of them. */
  exitCodes: ReadonlyArray<readonly [number, string]>;
}

const docs = new WeakMap<Command, CommandDocs>();

/** Records the command's examples and exit codes and shows them after its help. */
export function document(cmd: Command, extra: { examples: readonly string[]; exitCodes?: ReadonlyArray<readonly [number, string]> }): Command {
  const own = new Map(extra.exitCodes ?? []);
  const exitCodes = [...new Map([...COMMON_EXIT_CODES, ...own]).entries()].sort(([a], [b]) => a - b);
  docs.set(cmd, { examples: extra.examples, exitCodes });
  const lines = ['', 'Examples:', ...extra.examples.map((e) => `  $ ${e}`), '', 'Exit codes:', ...exitCodes.map(([code, text]) => `  ${code}  ${text}`)];
  return cmd.addHelpText('after', lines.join('\n'));
}

export function commandDocs(cmd: Command): CommandDocs | undefined {
  return docs.get(cmd);
}
