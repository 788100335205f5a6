/**
 * docs/reference/cli.md is generated from the commander definitions: it is
 * the page buildProgram() renders today, and it names every command and
 * option the program has, and none it lacks.
 */
import { readFileSync } from 'node:fs';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { CLI_PAGE, renderCliReference } from '../../docs/tools/generate-cli-docs.js';
import { buildProgram } from '../../src/cli/program.js';

const page = readFileSync(CLI_PAGE, 'utf8');
const program = buildProgram();

describe('docs/reference/cli.md', () => {
  it('is the page generated from buildProgram() (run `npm run docs`)', () => {
    expect(page).toBe(renderCliReference(program));
  });

  it('has a section per command, and none for a command the program lacks', () => {
    const documented = [...page.matchAll(/^### `litejobs ([\w-]+)`$/gm)].map((m) => m[1]);
    expect(documented).toEqual(program.commands.map((c) => c.name()));
    expect(documented).toEqual(['serve', 'demo', 'enqueue', 'jobs', 'job', 'stats', 'schedules', 'limits', 'group-concurrency', 'set-limits', 'retry', 'cancel', 'pause', 'resume', 'rm', 'clean', 'run-again', 'promote', 'update', 'send', 'signal', 'backup', 'migrate', 'diagram', 'doctor']);
  });

  it.each(program.commands.map((c) => [c.name(), c] as [string, Command]))('documents every option, the synopsis, exit codes and an example of `%s`', (name, cmd) => {
    const start = page.indexOf(`### \`litejobs ${name}\``);
    const end = page.indexOf('\n### ', start + 1);
    const section = page.slice(start, end === -1 ? undefined : end);
    expect(section).toContain(`litejobs ${name} ${cmd.usage()}`);
    for (const option of cmd.options as Option[]) expect(section).toContain(`| \`${option.flags}\` |`);
    expect(section).toMatch(/Exit codes:\n\n\| Code \| Meaning \|\n\| --- \| --- \|\n\| 0 \|.*\n\| 1 \|.*\n\| 2 \|/);
    expect(section).toMatch(new RegExp(`\`\`\`sh\\n\\$ litejobs .*${name}`));
  });

  it('documents the global --db option with its default and environment variable', () => {
    expect(page).toMatch(/\| `--db <path>` \| .* \| `"\.\/litejobs\.db"`, env `LITEJOBS_DB` \|/);
  });
});
