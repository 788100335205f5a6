import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { chmodSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createQueue, DatabaseError } from '../../src/index.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDir } from '../helpers/temp-db.js';
import { nodeArgs } from '../helpers/node-args.js';

const fixture = fileURLToPath(new URL('../fixtures/open-queue.ts', import.meta.url));

describe('a database that cannot be used is refused with a typed error', () => {
  it('reports a path whose folder does not exist', () => {
    const dir = tempDir();
    try {
      const open = () => createQueue({ path: join(dir.dir, 'missing', 'jobs.db'), logger: silentLogger });
      expect(open).toThrow(DatabaseError);
      expect(open).toThrow(expect.objectContaining({ code: 'LJ_ERR_DATABASE_OPEN' }));
    } finally {
      dir.cleanup();
    }
  });

  it('reports a file that is not a database, and leaves it untouched', () => {
    const dir = tempDir();
    try {
      const path = join(dir.dir, 'notes.txt');
      writeFileSync(path, 'x'.repeat(4096));
      expect(() => createQueue({ path, logger: silentLogger })).toThrow(expect.objectContaining({ code: 'LJ_ERR_DATABASE_OPEN' }));
    } finally {
      dir.cleanup();
    }
  });

  it('reports a read-only database file (opened by a user who may not write it)', async () => {
    const dir = tempDir();
    try {
      const path = join(dir.dir, 'jobs.db');
      const owner = createQueue({ path, logger: silentLogger });
      await owner.close();
      chmodSync(path, 0o444);
      chmodSync(dir.dir, 0o555);
      // Root writes anything: the child drops CAP_DAC_OVERRIDE so file modes apply to it too.
      const node = [process.execPath, ...nodeArgs(fixture, path)];
      const argv = process.getuid?.() === 0 ? ['setpriv', '--inh-caps=-dac_override', '--bounding-set=-dac_override', ...node] : node;
      const run = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8' });
      chmodSync(dir.dir, 0o755);
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('LJ_ERR_DATABASE_READONLY');
    } finally {
      dir.cleanup();
    }
  });

  it('refuses an unrelated SQLite file without switching it to WAL mode or adding tables', () => {
    const dir = tempDir();
    try {
      const path = join(dir.dir, 'app.db');
      const other = new Database(path);
      other.exec('CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)');
      other.close();
      const open = () => createQueue({ path, logger: silentLogger });
      expect(open).toThrow(expect.objectContaining({ code: 'LJ_ERR_DATABASE_OPEN', message: expect.stringContaining('not a litejobs database') }));
      const after = new Database(path, { readonly: true });
      expect(after.pragma('journal_mode', { simple: true })).toBe('delete');
      expect(after.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual(['users']);
      after.close();
      expect(existsSync(`${path}-wal`)).toBe(false);
    } finally {
      dir.cleanup();
    }
  });

  it('refuses a file whose schema level says litejobs but holds no litejobs tables, with a typed error and the file closed', () => {
    const dir = tempDir();
    try {
      const path = join(dir.dir, 'odd.db');
      const odd = new Database(path);
      odd.pragma('user_version = 3');
      odd.close();
      expect(() => createQueue({ path, logger: silentLogger })).toThrow(expect.objectContaining({ code: 'LJ_ERR_DATABASE_OPEN', name: 'DatabaseError' }));
      // Closed: no connection keeps a WAL or shared memory file behind.
      expect(readdirSync(dir.dir)).toEqual(['odd.db']);
    } finally {
      dir.cleanup();
    }
  });

  it('refuses a file made by a newer litejobs', async () => {
    const dir = tempDir();
    try {
      const path = join(dir.dir, 'jobs.db');
      await createQueue({ path, logger: silentLogger }).close();
      const raw = new Database(path);
      raw.pragma('user_version = 999');
      raw.close();
      expect(() => createQueue({ path, logger: silentLogger })).toThrow(expect.objectContaining({ code: 'LJ_ERR_DATABASE_OPEN', message: expect.stringContaining('newer litejobs') }));
    } finally {
      dir.cleanup();
    }
  });

  it('refuses a path containing NUL instead of opening the path cut at it', () => {
    const dir = tempDir();
    try {
      const cut = join(dir.dir, 'jobs.db');
      expect(() => createQueue({ path: `${cut}\0.backup`, logger: silentLogger })).toThrow(expect.objectContaining({ code: 'LJ_ERR_VALIDATION' }));
      expect(existsSync(cut)).toBe(false);
    } finally {
      dir.cleanup();
    }
  });
});
