/**
 * How `litejobs` fails: a usage error exits 2 and a runtime error exits 1,
 * each with one `litejobs: error: …` line on stderr and nothing on stdout;
 * --help exits 0. Usage errors are found before the database is opened.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT, runCli, startCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-db.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function dbPath(): string {
  const dir = tempDir();
  cleanup = dir.cleanup;
  return join(dir.dir, 'jobs.db');
}

/** One error line on stderr, nothing on stdout. */
function failedWith(r: CliResult, code: number, message: RegExp): void {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code, stdout: '' });
  expect(r.stderr).toMatch(/^litejobs: error: [^\n]+\n$/);
  expect(r.stderr).toMatch(message);
}

describe('litejobs usage errors', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('exit 2 with one line for an unknown flag, a missing argument, invalid JSON, an unknown command, a non-numeric id or limit, a misused retry', async () => {
    const db = dbPath();
    const cases: Array<[string[], RegExp]> = [
      [['jobs', '--bogus', '--db', db], /unknown option '--bogus'/],
      [['--db', db, 'enqueue', 'email'], /missing required argument 'json'/],
      [['enqueue', 'email', '{"to":', '--db', db], /argument 'json'.*not valid JSON/],
      [['enqueue', 'email', '{"id":12345678901234567891}', '--db', db], /the number 12345678901234567891 cannot be kept exactly/],
      [['--db', db, 'jbos'], /unknown command 'jbos' \(Did you mean jobs\?\)/],
      [['job', 'abc', '--db', db], /argument 'id'.*a job id must be an integer/],
      [['jobs', '--limit', 'ten', '--db', db], /'--limit <n>' argument 'ten' is invalid.*the limit must be an integer/],
      [['retry', '--db', db], /missing job id \(or --dead/],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    for (const [i, r] of results.entries()) failedWith(r, 2, cases[i]![1]);
    expect(existsSync(db)).toBe(false);
  });

  it('--help exits 0 and prints the commands, and a command its options, examples and exit codes', async () => {
    const [top, enqueue] = await Promise.all([runCli(['--help']), runCli(['enqueue', '--help'])]);
    expect({ code: top.code, stderr: top.stderr }).toEqual({ code: 0, stderr: '' });
    for (const name of ['enqueue', 'jobs', 'job', 'stats', 'retry', 'cancel', 'pause', 'resume', 'backup', 'doctor']) {
      expect(top.stdout).toMatch(new RegExp(`\\n  ${name} `));
    }
    expect(top.stdout).toContain('env: LITEJOBS_DB');
    expect({ code: enqueue.code, stderr: enqueue.stderr }).toEqual({ code: 0, stderr: '' });
    expect(enqueue.stdout).toMatch(/^Usage: litejobs enqueue \[options\] <name> <json>/);
    expect(enqueue.stdout).toMatch(/--delay <duration>/);
    expect(enqueue.stdout).toMatch(/Examples:\n {2}\$ litejobs enqueue /);
    expect(enqueue.stdout).toMatch(/Exit codes:\n {2}0 .*\n {2}1 .*\n {2}2 /);
  });

  it('ends quietly with its exit code when the reader closes the pipe (litejobs --help | head -1)', async () => {
    const cli = startCli(['--help']);
    // Closed before the command has written anything: its first write meets EPIPE.
    cli.proc.stdout!.destroy();
    const r = await cli.done;
    expect({ code: r.code, signal: r.signal, stderr: r.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
  });
});

describe('litejobs runtime errors', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('exit 1 with the error code for an unknown job id, and for a PostgreSQL server that does not answer', async () => {
    const db = dbPath();
    expect((await runCli(['enqueue', 'email', '{}', '--db', db])).code).toBe(0);
    const results = await Promise.all([
      runCli(['job', '99', '--db', db]),
      runCli(['--db', db, 'cancel', '99', '--json']),
      // Port 1 on loopback: nothing listens there.
      runCli(['jobs', '--db', 'postgres://user@127.0.0.1:1/jobs']),
      runCli(['stats'], { env: { LITEJOBS_DB: 'postgresql://127.0.0.1:1/jobs' } }),
    ]);
    failedWith(results[0]!, 1, /LJ_ERR_JOB_NOT_FOUND: no job with id 99/);
    failedWith(results[1]!, 1, /LJ_ERR_JOB_NOT_FOUND: no job with id 99/);
    failedWith(results[2]!, 1, /LJ_ERR_DATABASE_OPEN: cannot open database/);
    failedWith(results[3]!, 1, /LJ_ERR_DATABASE_OPEN: cannot open database/);
  });

  it('a read command never creates a database at a mistyped path: exit 1 with LJ_ERR_DATABASE_OPEN, no file made', async () => {
    const typo = dbPath();
    const results = await Promise.all([
      runCli(['doctor', '--db', typo]),
      runCli(['stats', '--db', typo]),
      runCli(['jobs', '--db', typo]),
      runCli(['job', '1', '--db', typo]),
      runCli(['retry', '--dead', '--db', typo]),
    ]);
    for (const r of results) failedWith(r, 1, /LJ_ERR_DATABASE_OPEN: database .* does not exist/);
    expect(existsSync(typo)).toBe(false);
    // Enqueueing makes the file; the jobs listing's next-page hint keeps --db.
    for (let i = 0; i < 3; i++) expect((await runCli(['enqueue', 'email', '{}', '--db', typo])).code).toBe(0);
    const page = await runCli(['jobs', '--limit', '2', '--db', typo]);
    expect(page.stdout).toContain(`next page: litejobs jobs --db ${typo} --limit 2 --after 2`);
  });

  it('lists and shows a job whose stored run time is past what a Date holds (written before run times were bounded)', async () => {
    const db = dbPath();
    for (let i = 0; i < 2; i++) expect((await runCli(['enqueue', 'email', '{}', '--db', db])).code).toBe(0);
    const raw = new Database(db);
    raw.prepare('UPDATE jobs SET run_at = 1e300 WHERE id = 1').run();
    raw.close();
    const [list, one, json] = await Promise.all([runCli(['jobs', '--state', 'pending', '--db', db]), runCli(['job', '1', '--db', db]), runCli(['job', '1', '--json', '--db', db])]);
    for (const r of [list, one, json]) expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(list.stdout).toMatch(/^1 +email +pending +0 +not a date /m);
    expect(list.stdout).toMatch(/^2 +email +pending /m);
    expect(one.stdout).toMatch(/^ {2}run at +not a date/m);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: 1, runAt: null });
  });
});
