/** `litejobs enqueue` with --unique-key, --debounce-key, --throttle-key and --lifo, in real child processes. */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_TEST_TIMEOUT, json, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-db.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

function tempDb(): string {
  const dir = tempDir();
  cleanup = dir.cleanup;
  return join(dir.dir, 'jobs.db');
}

describe('litejobs enqueue --unique-key, --debounce-key, --throttle-key', { timeout: CLI_TEST_TIMEOUT }, () => {
  it('a held key returns the first job; debounce replaces its payload', async () => {
    const db = tempDb();
    const run = (...args: string[]) => runCli(['enqueue', ...args, '--db', db, '--json']);
    expect(json(await run('a', '1', '--unique-key', 'u', '--unique-while', 'active'))).toEqual({ id: 1, created: true });
    expect(json(await run('a', '2', '--unique-key', 'u', '--unique-while', 'active'))).toEqual({ id: 1, created: false });
    expect(json(await run('a', '1', '--debounce-key', 'd', '--debounce', '1m'))).toEqual({ id: 2, created: true });
    expect(json(await run('a', '"last"', '--debounce-key', 'd', '--debounce', '1m'))).toEqual({ id: 2, created: false });
    expect(json(await run('a', '1', '--throttle-key', 't', '--throttle', '60000'))).toEqual({ id: 3, created: true });
    const text = await runCli(['enqueue', 'a', '2', '--throttle-key', 't', '--throttle', '1m', '--db', db]);
    expect(text.stdout).toBe('job 3 already enqueued under key "t": not created\n');
    const raw = new Database(db, { readonly: true });
    const rows = raw.prepare('SELECT id, payload, unique_kind, unique_key, unique_span FROM jobs ORDER BY id').all();
    raw.close();
    expect(rows).toEqual([
      { id: 1, payload: '1', unique_kind: 'unique', unique_key: 'u', unique_span: 2 },
      { id: 2, payload: '"last"', unique_kind: 'debounce', unique_key: 'd', unique_span: 1 },
      { id: 3, payload: '1', unique_kind: 'throttle', unique_key: 't', unique_span: 4 },
    ]);
  });

  it('bad flags are refused and nothing is stored', async () => {
    const db = tempDb();
    const usage = [
      ['--unique-while', 'pending'],
      ['--unique-key', 'u', '--unique-while', 'sometimes'],
      ['--debounce-key', 'd'],
      ['--throttle', '5s'],
    ];
    for (const flags of usage) {
      const r = await runCli(['enqueue', 'a', '1', ...flags, '--db', db]);
      expect({ flags, code: r.code }).toEqual({ flags, code: 2 });
      expect(r.stderr).toMatch(/unique|debounce|throttle/);
    }
    const invalid = await runCli(['enqueue', 'a', '1', '--key', 'k', '--unique-key', 'k', '--db', db]);
    expect(invalid.code).toBe(2); // a ValidationError is a usage error too
    expect(invalid.stderr).toMatch(/key .*unique/);
    expect(json(await runCli(['enqueue', 'a', '1', '--db', db, '--json']))).toEqual({ id: 1, created: true });
  });

  it('--lifo marks the job LIFO; with --delay it is refused', async () => {
    const db = tempDb();
    const run = (...args: string[]) => runCli(['enqueue', 'a', ...args, '--db', db, '--json']);
    expect(json(await run('"first"'))).toEqual({ id: 1, created: true });
    expect(json(await run('"last"', '--lifo'))).toEqual({ id: 2, created: true });
    const refused = await run('"x"', '--lifo', '--delay', '5s');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/lifo/);
    const listed = json<Array<{ id: number; lifo?: boolean; runAt: string; createdAt: string }>>(await runCli(['jobs', '--state', 'pending', '--db', db, '--json']));
    // Listed by id; the LIFO job is marked, its run time its creation (claim order: test/integration/enqueue.lifo.test.ts).
    expect(listed.map((j) => [j.id, j.lifo ?? false])).toEqual([[1, false], [2, true]]);
    expect(listed[1]!.runAt).toBe(listed[1]!.createdAt);
  });
});
