/**
 * The docs cannot drift from the code: every error code is documented; the
 * lifecycle diagram (Mermaid and SVG) is the one generated from the machine,
 * and `generate-docs --check` notices when either is stale; every
 * createQueue / enqueue option has its own heading in the API reference.
 */
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { createJobMachine } from '../../machines/job.machine.js';
import {
  extractBetweenMarkers,
  extractDiagram,
  LIFECYCLE_PAGE,
  LIFECYCLE_SVG,
  main,
  renderLifecycleDiagram,
  renderLifecycleSvg,
} from '../../docs/tools/generate-docs.js';
import { tempDir } from '../helpers/temp-db.js';

const read = (relative: string) => readFileSync(fileURLToPath(new URL(`../../${relative}`, import.meta.url)), 'utf8');

/** The string literals of `const <name> = [ … ] as const` in a source file. */
function arrayLiteral(source: string, name: string): string[] {
  const match = source.match(new RegExp(`const ${name}\\s*=\\s*\\[([\\s\\S]*?)\\]\\s*as const`));
  if (!match) throw new Error(`no "const ${name} = [...] as const" found`);
  return [...match[1]!.matchAll(/'([^']+)'|"([^"]+)"/g)].map((m) => (m[1] ?? m[2])!);
}

/** Markdown headings (`#` … `######`) of a page, without the hashes. */
function headings(page: string): string[] {
  return page
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => line.replace(/^#{1,6} /, '').trim());
}

describe('docs/reference/errors.md', () => {
  const page = read('docs/reference/errors.md');
  const documented = new Set(headings(page).map((h) => h.replace(/`/g, '')));

  it.each(Object.keys(ERROR_CODES))('has a heading for %s', (code) => {
    expect(documented.has(code), `docs/reference/errors.md has no "### \`${code}\`" heading`).toBe(true);
  });

  it('documents no code that does not exist', () => {
    const listed = headings(page).flatMap((h) => h.match(/LJ_ERR_[A-Z_]+/g) ?? []);
    expect(listed.filter((code) => !(code in ERROR_CODES))).toEqual([]);
  });
});

describe('docs/concepts/lifecycle.md', () => {
  it('holds the diagram generated from createJobMachine() (run `npx tsx docs/tools/generate-docs.ts`)', () => {
    const diagram = extractDiagram(read('docs/concepts/lifecycle.md'));
    expect(diagram, 'no mermaid block between <!-- lifecycle:start --> and <!-- lifecycle:end -->').toBeDefined();
    expect(diagram).toBe(renderLifecycleDiagram(createJobMachine()));
  });

  it('holds lifecycle.svg generated from createJobMachine(), shown beside the Mermaid block', async () => {
    expect(read('docs/concepts/lifecycle.svg')).toBe(await renderLifecycleSvg(createJobMachine()));
    expect(extractBetweenMarkers(read('docs/concepts/lifecycle.md'))).toMatch(/!\[[^\]]+\]\(lifecycle\.svg\)/);
  });

  it('generate-docs --check fails on a stale or missing SVG without writing it; a run writes it', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const paths = { page: join(dir, 'lifecycle.md'), svg: join(dir, 'lifecycle.svg') };
      copyFileSync(LIFECYCLE_PAGE, paths.page);
      expect(await main(['--check'], paths)).toBe(1);
      expect(existsSync(paths.svg)).toBe(false);
      const stale = readFileSync(LIFECYCLE_SVG, 'utf8').replace('data-state="dead"', 'data-state="buried"');
      writeFileSync(paths.svg, stale);
      expect(await main(['--check'], paths)).toBe(1);
      expect(readFileSync(paths.svg, 'utf8')).toBe(stale);
      expect(await main([], paths)).toBe(0);
      expect(await main(['--check'], paths)).toBe(0);
      expect(readFileSync(paths.svg, 'utf8')).toBe(readFileSync(LIFECYCLE_SVG, 'utf8'));
      expect(readFileSync(paths.page, 'utf8')).toBe(readFileSync(LIFECYCLE_PAGE, 'utf8'));
    } finally {
      cleanup();
    }
  });

  it('draws every state and every event of the machine', () => {
    const diagram = renderLifecycleDiagram(createJobMachine());
    for (const state of ['pending', 'processing', 'completed', 'failed', 'dead', 'cancelled']) expect(diagram).toContain(state);
    for (const label of ['job.claim', 'job.complete', 'job.fail [canRetry]', 'job.expire', 'job.release', 'job.cancel', 'job.retry', 'after retryDelay']) {
      expect(diagram).toContain(label);
    }
  });
});

describe('docs/reference/api.md', () => {
  const page = read('docs/reference/api.md');
  const headed = new Set(headings(page).flatMap((h) => [...h.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)));
  const optionsSource = read('src/engine/core/options.ts');

  const queueKeys = arrayLiteral(optionsSource, 'QUEUE_KEYS');
  it('finds the createQueue option keys in src/engine/core/options.ts', () => {
    expect(queueKeys).toContain('path');
    expect(queueKeys.length).toBeGreaterThan(5);
  });
  it.each(queueKeys)('has a heading for the createQueue option `%s`', (key) => {
    expect(headed.has(key), `docs/reference/api.md has no "### \`${key}\`" heading`).toBe(true);
  });

  it.each(arrayLiteral(optionsSource, 'ENQUEUE_KEYS'))('has a heading for the enqueue option `%s`', (key) => {
    expect(headed.has(key), `docs/reference/api.md has no "### \`${key}\`" heading`).toBe(true);
  });
});
