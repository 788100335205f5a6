/**
 * When better-sqlite3's native module cannot load (never built because npm
 * skipped its install script; built for another Node.js), the open fails
 * with LJ_ERR_DATABASE_OPEN saying which package, why, and the command that
 * fixes it, on one line. The "never built" case is real: a copy of the
 * package without its build folder, opened as litejobs opens a file.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nativeModuleFailure } from '../../src/store/sqlite/open.js';

const dir = mkdtempSync(join(tmpdir(), 'lj-native-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("better-sqlite3's native module", () => {
  it('never built: names the package, the cause and `npm rebuild better-sqlite3`', () => {
    const here = createRequire(import.meta.url);
    const pkg = join(here.resolve('better-sqlite3/package.json'), '..');
    const copy = join(dir, 'node_modules', 'better-sqlite3');
    cpSync(pkg, copy, { recursive: true, filter: (src) => !src.startsWith(join(pkg, 'build')) && !src.startsWith(join(pkg, 'deps')) && !src.startsWith(join(pkg, 'src')) });
    // With its loader (bindings, and what that needs), as npm installs them beside it.
    for (const dep of ['bindings', 'file-uri-to-path']) {
      cpSync(join(createRequire(join(pkg, 'x.js')).resolve(`${dep}/package.json`), '..'), join(dir, 'node_modules', dep), { recursive: true });
    }
    const Database = createRequire(join(dir, 'x.js'))('better-sqlite3') as new (path: string) => unknown;
    let thrown: unknown;
    try {
      new Database(join(dir, 'q.db'));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    const said = nativeModuleFailure(thrown);
    expect(said).toMatch(/^better-sqlite3's native module was never built .*npm rebuild better-sqlite3/);
    expect(said).not.toContain('\n');
  });

  it('built for another Node.js: says which module versions, and the fix', () => {
    // Node's own words for a module of another ABI (src/node_binding.cc), with its code.
    const err = Object.assign(
      new Error(
        "The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\n" +
          'was compiled against a different Node.js version using\n' +
          'NODE_MODULE_VERSION 115. This version of Node.js requires\n' +
          'NODE_MODULE_VERSION 127. Please try re-compiling or re-installing\n' +
          'the module (for instance, using `npm rebuild` or `npm install`).',
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    const said = nativeModuleFailure(err);
    expect(said).toBe(
      `better-sqlite3's native module was built for another Node.js (module version 115; Node.js ${process.versions.node} needs 127): ` +
        'run `npm rebuild better-sqlite3` with the Node.js that runs litejobs, or reinstall (npm ci)',
    );
  });

  it('any other load failure keeps its first line; an ordinary open failure is not one', () => {
    const err = Object.assign(new Error('/x/better_sqlite3.node: cannot open shared object file: No such file or directory\nmore'), { code: 'ERR_DLOPEN_FAILED' });
    expect(nativeModuleFailure(err)).toBe(
      "better-sqlite3's native module cannot be loaded (/x/better_sqlite3.node: cannot open shared object file: No such file or directory): run `npm rebuild better-sqlite3` with the Node.js that runs litejobs",
    );
    expect(nativeModuleFailure(Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' }))).toBeUndefined();
  });
});
