#!/usr/bin/env node
/** The `litejobs` command. Sets the exit code and lets the process end by itself, so stdout is flushed. */
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2));
