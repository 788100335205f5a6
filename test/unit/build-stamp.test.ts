/**
 * `npm start` builds only when the sources changed: scripts/build-stamp.mjs
 * run in a scratch project whose `build` script counts its runs.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/build-stamp.mjs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'lj-build-stamp-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// The scratch build writes what the real one emits, counts its runs, then stamps as the real one does.
const FAKE_BUILD = `
const fs = require('fs');
fs.mkdirSync('dist/src/cli', { recursive: true });
fs.mkdirSync('dist/dashboard', { recursive: true });
fs.writeFileSync('dist/src/cli/bin.js', '');
fs.writeFileSync('dist/dashboard/index.html', '');
const n = fs.existsSync('builds') ? Number(fs.readFileSync('builds', 'utf8')) : 0;
fs.writeFileSync('builds', String(n + 1));
`;

function setUp(): void {
  mkdirSync(join(root, 'scripts'));
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'dashboard', 'src'), { recursive: true });
  copyFileSync(SCRIPT, join(root, 'scripts', 'build-stamp.mjs'));
  writeFileSync(join(root, 'fake-build.cjs'), FAKE_BUILD);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'scratch', private: true, scripts: { build: 'node fake-build.cjs && node scripts/build-stamp.mjs write' } }));
  writeFileSync(join(root, 'src', 'index.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'dashboard', 'src', 'main.tsx'), 'export {};\n');
}

function ensure(): string {
  const run = spawnSync(process.execPath, ['scripts/build-stamp.mjs', 'ensure'], { cwd: root, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

const builds = () => Number(readFileSync(join(root, 'builds'), 'utf8'));
/** `check`'s exit code: 0 while dist/ matches the sources. */
const check = () => spawnSync(process.execPath, ['scripts/build-stamp.mjs', 'check'], { cwd: root }).status;

describe('scripts/build-stamp.mjs ensure', () => {
  it('builds the first time, skips while nothing changed, and builds again after a source or the dashboard changes or dist/ is gone', () => {
    setUp();
    ensure();
    expect(builds()).toBe(1);
    expect(ensure()).toContain('build skipped');
    expect(builds()).toBe(1);
    expect(check()).toBe(0);

    writeFileSync(join(root, 'src', 'index.ts'), 'export const a = 2;\n');
    expect(check()).toBe(1);
    expect(builds()).toBe(1); // check never builds
    ensure();
    expect(builds()).toBe(2);
    ensure();
    expect(builds()).toBe(2);

    writeFileSync(join(root, 'dashboard', 'src', 'new-panel.tsx'), 'export {};\n');
    ensure();
    expect(builds()).toBe(3);

    rmSync(join(root, 'dist', 'dashboard'), { recursive: true });
    ensure();
    expect(builds()).toBe(4);
  });
});
