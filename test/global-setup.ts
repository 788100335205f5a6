/**
 * Before any test: builds the dashboard page (esbuild, under a second), so
 * the HTTP tests and the browser test serve the page as the sources say,
 * not a stale build.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const script = fileURLToPath(new URL('../dashboard/build.mjs', import.meta.url));
  execFileSync(process.execPath, [script], { stdio: ['ignore', 'ignore', 'inherit'] });
}
