/**
 * Node arguments that run a TypeScript file of this repository in a child
 * process, from any working folder.
 *
 * Under vitest the global set-up has written the sources as JavaScript
 * (compiled-tree.ts, named by LITEJOBS_TEST_TREE): a script found there runs
 * from its compiled twin, and so does every argument that names one of the
 * repository's `.ts` files (a `--handlers` module), so that the child loads
 * one module graph. Elsewhere the script runs through tsx.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const loader = pathToFileURL(`${root}node_modules/tsx/dist/loader.mjs`).href;

/** The compiled twin of a `.ts` file of the repository, if the tree has it. */
export function compiledTwin(path: string): string | undefined {
  const tree = process.env.LITEJOBS_TEST_TREE;
  if (!tree || !isAbsolute(path) || !path.endsWith('.ts')) return undefined;
  const rel = relative(root, path);
  if (rel.startsWith('..')) return undefined;
  const js = join(tree, rel.replace(/\.ts$/, '.js'));
  return existsSync(js) ? js : undefined;
}

export function nodeArgs(script: string, ...args: string[]): string[] {
  const twin = compiledTwin(script);
  if (twin) return [twin, ...args.map((a) => compiledTwin(a) ?? a)];
  return ['--import', loader, script, ...args];
}
