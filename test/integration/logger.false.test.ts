/** `createQueue({ logger: false })` logs nothing (fastify's way to silence a logger), in a real child process; a bad logger is a typed error. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createQueue } from '../../src/index.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { nodeArgs } from '../helpers/node-args.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/logger-option.ts', import.meta.url));

function run(mode: 'false' | 'default') {
  const db = tempDbPath();
  try {
    return spawnSync(process.execPath, nodeArgs(FIXTURE, db.path, mode), { encoding: 'utf8', timeout: 60_000, env: { ...process.env, LITEJOBS_LOG_LEVEL: 'info' } });
  } finally {
    db.cleanup();
  }
}

describe('createQueue logger', () => {
  it('false: a queue that starts, fails an attempt, completes and closes writes nothing', () => {
    const silent = run('false');
    expect(silent.status, silent.stderr).toBe(0);
    expect({ stdout: silent.stdout, stderr: silent.stderr }).toEqual({ stdout: '', stderr: '' });
    // The same run with the default logger does log (so the check above can fail).
    const loud = run('default');
    expect(loud.status, loud.stderr).toBe(0);
    expect(loud.stdout).toContain('first try fails');
  });

  it('refuses a value that is neither a pino logger nor false', () => {
    for (const logger of [true, 'pino', {}, null]) {
      expect(() => createQueue({ path: ':memory:', logger: logger as never })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
    }
  });
});
