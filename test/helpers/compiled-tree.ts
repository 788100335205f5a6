/**
 * The sources as plain JavaScript, for the child processes the tests start
 * (the CLI, worker fixtures, the chaos tool).
 *
 * Run through tsx, a child spends ~0.6 s of CPU in the loader's hooks alone
 * (measured: `litejobs enqueue` 1.1 s through tsx, 0.4 s from JavaScript),
 * and the suite starts a few hundred of them. So before the tests, esbuild
 * transforms every file of src/, machines/, bench/chaos/ and test/fixtures/ one to
 * one (no bundling: each module keeps its place, so every path a module
 * finds from its own `import.meta.url` — the SQL files, thread entries, the
 * dashboard page — resolves as it does in dist/), in well under a second.
 * The tree is rebuilt for every run, so it is never stale.
 *
 * Files that are not TypeScript are copied as they are: the SQL, the thread
 * boot module, and the `.ts` sources themselves, for thread jobs whose
 * definitions name a `.ts` module (those threads register tsx as from
 * source, and their imports land on this tree's JavaScript).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
const TREES = ['src', 'machines', 'bench/chaos', 'test/fixtures'];

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

/** Writes the tree into `out` (emptied first). */
export async function writeCompiledTree(out: string): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  const files = TREES.flatMap(filesUnder);
  const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  await build({
    entryPoints: sources.map((f) => join(root, f)),
    outbase: root,
    outdir: out,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'error',
  });
  for (const f of files) {
    if (existsSync(join(out, f))) continue; // an esbuild output of the same name
    mkdirSync(join(out, f, '..'), { recursive: true });
    cpSync(join(root, f), join(out, f));
  }
  // The page as the global set-up just built it, where dist/src/http finds it.
  if (existsSync(join(root, 'dist/dashboard'))) cpSync(join(root, 'dist/dashboard'), join(out, 'dist/dashboard'), { recursive: true });
  // Its own package scope: ES modules, and the version the CLI prints.
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  writeFileSync(join(out, 'package.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module' })}\n`);
}
