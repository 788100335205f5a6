/**
 * Builds the dashboard page into dist/dashboard: one minified ES module and
 * one stylesheet under assets/, plus index.html whose `%LITEJOBS_BASE%` the
 * HTTP plugin fills in with its mount prefix when it serves the page.
 *
 * Usage: node dashboard/build.mjs
 */
import { copyFileSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const out = join(root, 'dist', 'dashboard');
const assets = join(out, 'assets');

rmSync(out, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

await build({
  // Named `app` so that the JS lands in app.js and the CSS it imports in app.css.
  entryPoints: { app: join(here, 'src', 'main.tsx') },
  outdir: assets,
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
});
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
copyFileSync(join(here, 'favicon.svg'), join(assets, 'favicon.svg'));

for (const file of ['app.js', 'app.css', 'favicon.svg']) {
  const path = join(assets, file);
  console.log(`${relative(root, path).padEnd(34)} ${(statSync(path).size / 1024).toFixed(1).padStart(7)} KB`);
}
