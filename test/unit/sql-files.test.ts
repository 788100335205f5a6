/**
 * One SQL convention for both stores: every statement lives in a .sql file
 * of its store's sql/ folder (or src/store/sql/ for what both share), opens
 * with a header that says what it does, and is used by the code; no
 * statement is written inline in a store's TypeScript.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { statement } from '../../src/store/postgres/sql.js';
import { sql } from '../../src/store/sqlite/sql.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const filesIn = (dir: string, ending: string) =>
  readdirSync(join(root, dir))
    .filter((f) => f.endsWith(ending))
    .map((f) => join(dir, f));
const STORES = ['src/store/postgres', 'src/store/sqlite'];
const SQL_DIRS = ['src/store/postgres/sql', 'src/store/sqlite/sql', 'src/store/sql'];

/** A string literal of TypeScript that starts like a statement. */
const INLINE_STATEMENT = /['`"]\s*(SELECT|INSERT|UPDATE|DELETE|WITH|BEGIN|COMMIT|ROLLBACK|LISTEN|CREATE|ALTER|DROP)\b/;

describe('SQL files', () => {
  it('no PostgreSQL statement is written inline in the store code', () => {
    const inline = filesIn('src/store/postgres', '.ts').flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .map((line, i) => ({ file, line: i + 1, text: line }))
        .filter(({ text }) => !/^\s*(\*|\/\/)/.test(text) && INLINE_STATEMENT.test(text)),
    );
    expect(inline).toEqual([]);
  });

  it('every statement file opens with a header comment', () => {
    const bare = SQL_DIRS.flatMap((dir) => filesIn(dir, '.sql')).filter((file) => !readFileSync(join(root, file), 'utf8').startsWith('-- '));
    expect(bare).toEqual([]);
  });

  it('every statement file is used by its store', () => {
    const code = STORES.flatMap((dir) => filesIn(dir, '.ts'))
      .concat(['src/store/transition-set.ts', 'src/store/sqlite/browse-jobs.ts'])
      .map((file) => readFileSync(join(root, file), 'utf8'))
      .join('\n');
    const unused = SQL_DIRS.flatMap((dir) => filesIn(dir, '.sql'))
      .map((file) => file.split('/').pop()!.replace(/\.sql$/, ''))
      .filter((name) => !code.includes(`'${name}'`) && !code.includes(`/${name}.sql`));
    expect(unused).toEqual([]);
  });

  it('fills names in, and refuses one it does not know', () => {
    expect(statement('heartbeat', 'lj')).toContain(`"lj".jobs`);
    expect(statement('heartbeat', 'lj')).toContain(`state = 'processing'`);
    expect(statement('heartbeat', 'lj')).not.toMatch(/^--/);
    expect(sql('claim-unique')).toContain('unique_span < 2');
    expect(() => statement('list-jobs', 'lj')).toThrow(/\{\{where\}\}/);
  });
});
