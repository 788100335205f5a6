/**
 * Before any test: builds the dashboard page (esbuild, under a second), so
 * the HTTP tests and the browser test serve the page as the sources say,
 * not a stale build; then writes the sources as JavaScript for the child
 * processes the tests start (helpers/compiled-tree.ts), in a folder of this
 * run's own that LITEJOBS_TEST_TREE names to the test workers.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeCompiledTree } from './helpers/compiled-tree.js';

const TREES = fileURLToPath(new URL('../node_modules/.cache/litejobs-test/', import.meta.url));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export default async function setup(): Promise<() => void> {
  // Vitest calls this once for the root config and once for each project that extends it: the first call does the work.
  if (process.env.LITEJOBS_TEST_TREE === join(TREES, `run-${process.pid}`)) return () => undefined;
  const script = fileURLToPath(new URL('../dashboard/build.mjs', import.meta.url));
  execFileSync(process.execPath, [script], { stdio: ['ignore', 'ignore', 'inherit'] });
  mkdirSync(TREES, { recursive: true });
  // Trees of runs that ended without their teardown (killed).
  for (const name of readdirSync(TREES)) {
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || !alive(pid)) rmSync(join(TREES, name), { recursive: true, force: true });
  }
  const tree = join(TREES, `run-${process.pid}`);
  await writeCompiledTree(tree);
  process.env.LITEJOBS_TEST_TREE = tree;
  return () => rmSync(tree, { recursive: true, force: true });
}
