/**
 * The docs cannot drift from the code: every error code is documented, the
 * lifecycle diagram is the one generated from the machine, and every
 * createQueue / enqueue option has its own heading in the API reference.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { createJobMachine } from '../../machines/job.machine.js';
import { extractDiagram, renderLifecycleDiagram } from '../../docs/tools/generate-docs.js';

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
  const optionsSource = read('src/engine/options.ts');

  const queueKeys = arrayLiteral(optionsSource, 'QUEUE_KEYS');
  it('finds the createQueue option keys in src/engine/options.ts', () => {
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
