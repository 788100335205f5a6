#!/usr/bin/env node
/** The `litejobs` command. Sets the exit code and lets the process end by itself, so stdout is flushed. */
import { runCli } from './program.js';

// `litejobs jobs | head`: once the reader has closed the pipe, nothing more
// can be said, so the command ends as Unix tools do on SIGPIPE, quietly,
// rather than with a stack trace for a write nobody reads.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await runCli(process.argv.slice(2));
