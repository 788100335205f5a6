/**
 * `litejobs enqueue --handlers` with a module of schema'd jobs, in real child
 * processes: a refused payload prints the error and one line per issue and
 * exits with the usage code, storing nothing; an accepted one is stored as
 * the schema's output.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { CLI_TEST_TIMEOUT, json, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-db.js';

const HANDLERS = fileURLToPath(new URL('../fixtures/schema-handlers.ts', import.meta.url));

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function tempDb(): string {
  const dir = tempDir();
  cleanup = dir.cleanup;
  return join(dir.dir, 'jobs.db');
}

function storedPayloads(db: string): unknown[] {
  const raw = new Database(db, { readonly: true });
  try {
    return raw.prepare('SELECT name, payload FROM jobs ORDER BY id').all();
  } finally {
    raw.close();
  }
}

describe('litejobs enqueue --handlers with schemas', { timeout: CLI_TEST_TIMEOUT }, () => {
  it("prints the issues of a refused payload, exits with the usage code and stores nothing; stores an accepted payload as the schema's output", async () => {
    const db = tempDb();
    const bad = await runCli(['enqueue', 'invite', '{"email":"not-an-address","role":"owner"}', '--handlers', HANDLERS, '--db', db]);
    expect(bad.code).toBe(ExitCode.usage);
    expect(bad.stdout).toBe('');
    const lines = bad.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^litejobs: error: LJ_ERR_INVALID_PAYLOAD: job "invite": the payload does not match the schema: email: .+; role: .+/);
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^ {2}email: \S/), expect.stringMatching(/^ {2}role: \S/)]);
    // A declared job's schema (valibot) validates as well.
    const declared = await runCli(['enqueue', 'restock', '{"sku":"ab","qty":0}', '--handlers', HANDLERS, '--db', db]);
    expect(declared.code).toBe(ExitCode.usage);
    expect(declared.stderr.trimEnd().split('\n').slice(1)).toEqual([expect.stringMatching(/^ {2}qty: \S/)]);
    expect(storedPayloads(db)).toEqual([]);

    expect(json(await runCli(['enqueue', 'invite', '{"email":" Ada@Example.com "}', '--handlers', HANDLERS, '--db', db, '--json']))).toEqual({ id: 1, created: true });
    expect(json(await runCli(['enqueue', 'restock', '{"sku":"ab","qty":2}', '--handlers', HANDLERS, '--db', db, '--json']))).toEqual({ id: 2, created: true });
    // Without the module there is no schema: the payload goes in as given.
    expect(json(await runCli(['enqueue', 'invite', '{"email":"x"}', '--db', db, '--json']))).toEqual({ id: 3, created: true });
    expect(storedPayloads(db)).toEqual([
      { name: 'invite', payload: '{"email":"ada@example.com","role":"viewer"}' },
      { name: 'restock', payload: '{"sku":"AB","qty":2}' },
      { name: 'invite', payload: '{"email":"x"}' },
    ]);
  });
});
