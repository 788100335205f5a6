/**
 * The code in the guides compiles against the code it describes. Every
 * ```ts block of the pages below is a module of its own, typechecked with the
 * TypeScript compiler under the repository's tsconfig: `'litejobs'`,
 * `'litejobs/http'` and `'litejobs/machines'` are the sources (src/, machines/),
 * and a block tagged with another library (```ts bullmq, ```ts pg-boss,
 * ```ts graphile-worker) is checked against that library as installed, so
 * both sides of a comparison are real. A tagged block imports its library and
 * not litejobs; an untagged one imports none of them. The ```ts test blocks
 * of a page, in order, are a test file the suite runs (TEST_FILES).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const PAGES = [
  'docs/guides/coming-from-bullmq.md',
  'docs/guides/coming-from-pg-boss-and-graphile-worker.md',
  'docs/guides/testing.md',
  'docs/guides/observability.md',
  'docs/guides/tracing.md',
  'docs/guides/waiting-for-the-world.md',
];

/** Pages whose ```ts test blocks, joined in order, are a test file (its leading `//` lines aside), with 'litejobs' for its relative import of src/index.js. */
const TEST_FILES: Record<string, { file: string; litejobsImport: string }> = {
  'docs/guides/testing.md': { file: 'test/integration/docs.testing-guide.test.ts', litejobsImport: '../../src/index.js' },
};

/** The libraries a block may be tagged with; the untagged ones are litejobs'. */
const LIBRARIES = ['bullmq', 'pg-boss', 'graphile-worker'];

interface Block {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string after `ts`: '', a library, or 'test'. */
  tag: string;
  code: string;
}

/** The ```ts blocks of a page (fences at the start of a line). */
function tsBlocks(page: string): Block[] {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`${page}:${start + 1}: unclosed code fence`);
    if (open[1] === 'ts') out.push({ page, line: start + 1, tag: open[2]!.trim(), code: body.join('\n') });
  }
  return out;
}

/** The module specifiers a block imports. */
function imports(code: string): string[] {
  return [...code.matchAll(/^\s*import\s[^'"]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'/gm)].map((m) => (m[1] ?? m[2])!);
}

const sampleName = (b: Block) => join(ROOT, `${b.page.replace(/\.md$/, '')}.line-${b.line}.sample.ts`);

/** Typechecks the blocks in one program: each block's errors, as `page:line: message` (the line in the page). */
function typecheck(blocks: Block[]): Map<Block, string[]> {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    declaration: false,
    sourceMap: false,
    // A sample shows a part: a worker it starts and never reads again is fine.
    noUnusedLocals: false,
    noUnusedParameters: false,
    paths: {
      litejobs: [join(ROOT, 'src/index.ts')],
      'litejobs/http': [join(ROOT, 'src/http/index.ts')],
      'litejobs/machines': [join(ROOT, 'machines/index.ts')],
    },
  };
  // Each block is a module (`export {}`), so top-level await and its own names work.
  const sources = new Map(blocks.map((b) => [sampleName(b), `${b.code}\nexport {};\n`]));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => sources.has(f) || fileExists.call(host, f);
  host.readFile = (f) => sources.get(f) ?? readFile.call(host, f);
  host.getSourceFile = (f, language, onError, create) => {
    const text = sources.get(f);
    return text === undefined ? getSourceFile.call(host, f, language, onError, create) : ts.createSourceFile(f, text, language, true);
  };
  const program = ts.createProgram({ rootNames: [...sources.keys()], options, host });
  const out = new Map<Block, string[]>();
  for (const b of blocks) {
    const file = program.getSourceFile(sampleName(b))!;
    const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    out.set(
      b,
      diagnostics.map((d) => {
        const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
        return `${b.page}:${b.line + 1 + at}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      }),
    );
  }
  return out;
}

const blocks = PAGES.flatMap(tsBlocks);
const checked = blocks.filter((b) => b.tag !== 'test');

describe('the guides’ TypeScript samples', () => {
  let errors: Map<Block, string[]>;
  beforeAll(() => {
    errors = typecheck(checked);
  }, 120_000);

  it.each(PAGES)('%s has litejobs samples to check', (page) => {
    expect(blocks.filter((b) => b.page === page && (b.tag === '' || b.tag === 'test')).length).toBeGreaterThan(0);
  });

  it('tags every block with what it is: litejobs, a library it is compared with, or a part of a test file', () => {
    const bad = blocks.filter((b) => !(b.tag === '' || b.tag === 'test' || LIBRARIES.includes(b.tag))).map((b) => `${b.page}:${b.line}: ${b.tag}`);
    expect(bad).toEqual([]);
  });

  it('imports, in each block, the library its tag names, and litejobs only in untagged ones', () => {
    const wrong: string[] = [];
    for (const b of checked) {
      const libs = imports(b.code).filter((m) => !m.startsWith('node:'));
      const other = libs.filter((m) => (b.tag === '' ? LIBRARIES.includes(m) : m === 'litejobs' || m.startsWith('litejobs/')));
      if (other.length > 0) wrong.push(`${b.page}:${b.line}: ${b.tag || 'litejobs'} block imports ${other.join(', ')}`);
      if (b.tag !== '' && !libs.includes(b.tag)) wrong.push(`${b.page}:${b.line}: ${b.tag} block does not import ${b.tag}`);
    }
    expect(wrong).toEqual([]);
  });

  it.each(checked.map((b) => [`${b.page}:${b.line}${b.tag ? ` (${b.tag})` : ''}`, b] as const))('%s typechecks', (_name, block) => {
    expect(errors.get(block)).toEqual([]);
  });

  it.each(Object.entries(TEST_FILES).map(([page, t]) => [page, t.file, t.litejobsImport]))('the ts test blocks of %s are %s, run by the suite', (page, file, litejobsImport) => {
    const parts = blocks.filter((b) => b.page === page && b.tag === 'test');
    expect(parts.length).toBeGreaterThan(0);
    const source = readFileSync(join(ROOT, file), 'utf8').replace(/^(\/\/.*\n)+/, '');
    expect(`${parts.map((b) => b.code).join('\n\n')}\n`).toBe(source.replaceAll(`'${litejobsImport}'`, "'litejobs'"));
  });
});
