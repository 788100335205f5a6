/**
 * Lets `npm start` skip the build (about a minute) when dist/ was built from
 * the sources as they are now. The stamp is a hash of every file the build
 * reads; `npm run build` writes it last, so a failed build leaves no stamp.
 *
 * Usage: node scripts/build-stamp.mjs write     (the end of `npm run build`)
 *        node scripts/build-stamp.mjs ensure    (builds unless the stamp matches)
 *        node scripts/build-stamp.mjs check     (exit 0 if it matches, 1 if not: the packed-package test)
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = join(root, 'dist', '.build-stamp');
const INPUTS = ['src', 'machines', 'dashboard', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
/** What the build emits: a stamp is worth nothing if these are gone. */
const OUTPUTS = ['dist/src/cli/bin.js', 'dist/dashboard/index.html'];

function files(path) {
  const entries = readdirSync(path, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath ?? e.path, e.name));
}

function sourceHash() {
  const hash = createHash('sha256');
  const all = INPUTS.flatMap((input) => {
    const path = join(root, input);
    if (!existsSync(path)) return [];
    return statSync(path).isDirectory() ? files(path) : [path];
  });
  for (const path of all.map((p) => relative(root, p)).sort()) {
    hash.update(path).update('\0').update(readFileSync(join(root, path))).update('\0');
  }
  return hash.digest('hex');
}

function current() {
  if (!OUTPUTS.every((out) => existsSync(join(root, out)))) return false;
  return existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === sourceHash();
}

const mode = process.argv[2];
if (mode === 'write') {
  writeFileSync(stampFile, `${sourceHash()}\n`);
} else if (mode === 'ensure') {
  if (current()) {
    console.log('dist/ is current: build skipped (npm run build forces one)');
  } else {
    const run = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
    if (run.status !== 0) process.exit(run.status ?? 1);
  }
} else if (mode === 'check') {
  process.exit(current() ? 0 : 1);
} else {
  console.error('usage: node scripts/build-stamp.mjs write|ensure|check');
  process.exit(2);
}
