/**
 * The package as a user installs it: built, packed with `npm pack`, unpacked
 * into a separate ESM project, and only the package's production
 * dependencies resolvable there (linked to this checkout's copies:
 * reinstalling would recompile better-sqlite3). Then plain `node`, with no
 * TypeScript loader, imports it from ESM and from CommonJS and runs a job, tsc
 * type-checks a consumer, and the demo runs from the package.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packPackage, root, run, runDemoUntilCompleted, userEnv } from '../helpers/packed.js';
import { tempDir } from '../helpers/temp-db.js';

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  main: string;
  types: string;
  bin: Record<string, string>;
  exports: Record<string, Record<string, string>>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const dependencies = Object.keys(manifest.dependencies);
const devDependencies = Object.keys(manifest.devDependencies);

function sqlFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sqlFiles(join(dir, e.name), `${prefix}${e.name}/`) : e.name.endsWith('.sql') ? [`${prefix}${e.name}`] : [],
  );
}

let tmp: { dir: string; cleanup(): void };
let project: string;
let files: string[];

beforeAll(async () => {
  tmp = tempDir('litejobs-pack-');
  const packed = await packPackage(tmp.dir);
  files = packed.files;

  project = join(tmp.dir, 'app');
  const installed = join(project, 'node_modules', 'litejobs');
  mkdirSync(installed, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  const untar = await run('tar', ['-xzf', packed.tarball, '-C', installed, '--strip-components=1'], tmp.dir);
  expect(untar.code, untar.out).toBe(0);
  for (const dep of dependencies) {
    const link = join(project, 'node_modules', dep);
    mkdirSync(dirname(link), { recursive: true }); // a scoped name needs its @scope folder
    symlinkSync(realpathSync(join(root, 'node_modules', dep)), link, 'dir');
  }
}, 120_000);

afterAll(() => tmp?.cleanup());

// tsc and the child processes share two cores with the rest of the suite.
describe('the packed package', { timeout: 60_000 }, () => {
  it('holds every file package.json points at, the SQL files and the checkpointer thread, and no tests or benchmarks', () => {
    const shipped = new Set(files);
    const entryPoints = [manifest.main, manifest.types, ...Object.values(manifest.bin), ...Object.values(manifest.exports).flatMap((conditions) => Object.values(conditions))];
    for (const entry of entryPoints) expect(shipped, `${entry} is not in the tarball`).toContain(entry.replace(/^\.\//, ''));
    for (const path of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/machines/index.js', 'dist/src/store/sqlite/checkpointer-thread.js', 'dist/src/cli/bin.js', 'dist/src/http/index.js', 'dist/src/http/index.d.ts']) {
      expect(shipped, `${path} is not in the tarball`).toContain(path);
    }
    const sql = sqlFiles(join(root, 'src/store/sqlite/sql'));
    expect(sql.length).toBeGreaterThan(10);
    expect(sql.filter((f) => !shipped.has(`dist/src/store/sqlite/sql/${f}`))).toEqual([]);
    expect(files.filter((f) => /^(test|bench)\//.test(f) || /\.(test|spec|bench)\.[cm]?[jt]s$/.test(f) || f.endsWith('.tgz'))).toEqual([]);
  });

  it('resolves its production dependencies in the project, and no devDependency (else the runs below prove nothing)', async () => {
    // `<name>/package.json`: ERR_MODULE_NOT_FOUND means absent; any other answer, even "not exported", means present.
    const probe = `for (const name of process.argv.slice(2)) {
      try { import.meta.resolve(name + '/package.json'); console.log(name + ' present'); }
      catch (err) { console.log(name + ' ' + (err.code === 'ERR_MODULE_NOT_FOUND' ? 'absent' : 'present')); }
    }`;
    writeFileSync(join(project, 'probe.mjs'), probe);
    const names = ['litejobs', ...dependencies, ...devDependencies];
    const result = await run(process.execPath, ['probe.mjs', ...names], project, userEnv());
    expect(result.code, result.out).toBe(0);
    const expected = names.map((n) => `${n} ${n === 'litejobs' || dependencies.includes(n) ? 'present' : 'absent'}`);
    expect(result.stdout.trim().split('\n')).toEqual(expected);
  });

  it('imports litejobs and litejobs/machines with plain node and runs a job to completed', async () => {
    const app = `import { createQueue, defineJob } from 'litejobs';
import { JobState } from 'litejobs/machines';

const double = defineJob({ name: 'double', handler: async ({ n }) => ({ doubled: n * 2 }) });
const queue = createQueue({ path: './app.db', jobs: [double] });
const { id } = await queue.enqueue('double', { n: 21 });
const done = new Promise((resolve) => {
  queue.events$.subscribe((e) => { if (e.job.id === id && e.to === JobState.completed) resolve(); });
});
await queue.start();
await done;
const job = await queue.getJob(id);
await queue.close();
console.log(\`job \${id} \${job.state} \${JSON.stringify(job.result)}\`);
`;
    writeFileSync(join(project, 'app.mjs'), app);
    const result = await run(process.execPath, ['app.mjs'], project, userEnv({ LITEJOBS_LOG_LEVEL: 'info' }));
    expect(result.code, result.out).toBe(0);
    expect(result.stdout).toContain('job 1 completed {"doubled":42}');
    // The default logger writes JSON lines; a warning would mean, for one, that the checkpointer thread did not start.
    const warnings = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .filter((line) => (JSON.parse(line) as { level: number }).level >= 40);
    expect(warnings).toEqual([]);
  });

  it('loads nothing of OpenTelemetry without the peer, nor with it and no SDK; traces once an SDK is registered', async () => {
    // No static import of it anywhere in what ships: the package loads it lazily, when an SDK is registered.
    const js = readdirSync(join(project, 'node_modules', 'litejobs', 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    const importing = js.filter((f) => /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"]@opentelemetry\//.test(readFileSync(join(project, 'node_modules', 'litejobs', 'dist', f), 'utf8')));
    expect(importing).toEqual([]);
    const app = `import { createRequire } from 'node:module';
import { createQueue, defineJob } from 'litejobs';

const loaded = () => Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('@opentelemetry')).length;
const queue = createQueue({ path: './otel-' + process.argv[2] + '.db', jobs: [defineJob({ name: 'n', handler: async () => 1 })] });
const ran = async () => {
  const { id } = await queue.enqueue('n', {});
  await queue.result(id, { timeout: 20000 });
};
await queue.start();
await ran();
console.log('loaded ' + loaded());
if (process.argv[2] === 'sdk') {
  const { trace, context } = await import('@opentelemetry/api');
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  await ran();
  await new Promise((resolve) => setTimeout(resolve, 100));
  console.log('spans ' + exporter.getFinishedSpans().map((s) => s.name).sort().join(','));
}
await queue.close();
`;
    writeFileSync(join(project, 'otel.mjs'), app);
    const without = await run(process.execPath, ['otel.mjs', 'absent'], project, userEnv({ LITEJOBS_LOG_LEVEL: 'warn' }));
    expect(without.code, without.out).toBe(0);
    expect(without.stdout.trim()).toBe('loaded 0');
    // The peer and an SDK installed beside the package, for this test only (the probe above finds no devDependency).
    const linked = ['@opentelemetry/api', '@opentelemetry/sdk-trace-base'].map((dep) => join(project, 'node_modules', dep));
    for (const link of linked) {
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(realpathSync(join(root, 'node_modules', link.split('node_modules/')[1]!)), link, 'dir');
    }
    try {
      const idle = await run(process.execPath, ['otel.mjs', 'idle'], project, userEnv({ LITEJOBS_LOG_LEVEL: 'warn' }));
      expect(idle.code, idle.out).toBe(0);
      expect(idle.stdout.trim()).toBe('loaded 0');
      const traced = await run(process.execPath, ['otel.mjs', 'sdk'], project, userEnv({ LITEJOBS_LOG_LEVEL: 'warn' }));
      expect(traced.code, traced.out).toBe(0);
      expect(traced.stdout.trim().split('\n')).toEqual(['loaded 0', 'spans process n,send n']);
    } finally {
      for (const link of linked) rmSync(link);
    }
  });

  it('serves the HTTP API from litejobs/http with plain node', async () => {
    const app = `import { createQueue } from 'litejobs';
import { startServer } from 'litejobs/http';

const queue = createQueue({ path: './http.db' });
const server = await startServer({ queue, port: 0 });
const res = await fetch(server.url + '/v1/jobs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'hello', payload: 1 }) });
console.log(res.status, JSON.stringify(await res.json()));
await server.close();
await queue.close();
`;
    writeFileSync(join(project, 'http.mjs'), app);
    const result = await run(process.execPath, ['http.mjs'], project, userEnv({ LITEJOBS_LOG_LEVEL: 'warn' }));
    expect(result.code, result.out).toBe(0);
    expect(result.stdout.trim()).toBe('201 {"id":1,"state":"pending","created":true}');
  });

  it('loads in a CommonJS module through await import(), and refuses require() as the getting-started guide says', async () => {
    const cjs = `async function main() {
  const { createQueue, defineJob } = await import('litejobs');
  const hello = defineJob({ name: 'hello', handler: async ({ who }) => ({ greeting: 'hello ' + who }) });
  const queue = createQueue({ path: './cjs.db', jobs: [hello] });
  const { id } = await queue.enqueue('hello', { who: 'cjs' });
  await new Promise((resolve) => {
    queue.events$.subscribe((e) => { if (e.job.id === id && e.to === 'completed') resolve(); });
    void queue.start();
  });
  console.log(JSON.stringify((await queue.getJob(id)).result));
  await queue.close();
  try { require('litejobs'); console.log('require: loaded'); } catch (err) { console.log('require: ' + err.code); }
}
main();
`;
    writeFileSync(join(project, 'app.cjs'), cjs);
    const result = await run(process.execPath, ['app.cjs'], project, userEnv({ LITEJOBS_LOG_LEVEL: 'warn' }));
    expect(result.code, result.out).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(['{"greeting":"hello cjs"}', 'require: ERR_PACKAGE_PATH_NOT_EXPORTED']);
  });

  it('type-checks a TypeScript consumer against the shipped declarations alone', async () => {
    writeFileSync(
      join(project, 'app.ts'),
      `import { createQueue, defineJob, type Job, type QueueEvent } from 'litejobs';
import { JobState, type RetryPolicy } from 'litejobs/machines';

const retry: RetryPolicy = { attempts: 2 };
const double = defineJob({ name: 'double', retry, handler: async ({ n }: { n: number }) => ({ doubled: n * 2 }) });
const queue = createQueue({ path: './app.db', jobs: [double] });
queue.events$.subscribe((e: QueueEvent) => { if (e.type !== 'run:stuck') void e.to; });
export const job: Promise<Job> = queue.getJob(1);
export const done: string = JobState.completed;
`,
    );
    // No skipLibCheck: every shipped .d.ts must compile for the consumer, and
    // no @types package: the declarations must not need one of our devDependencies.
    // TypeScript's own lib.*.d.ts are not checked again (skipDefaultLibCheck: a fifth of the check's time).
    const tsconfig = { compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, skipDefaultLibCheck: true, types: [] }, files: ['app.ts'] };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], project, userEnv());
    expect(result.code, result.out).toBe(0);
  });

  it('runs `litejobs demo` from the package, and a SIGTERM after its first completed job drains and exits 0', async () => {
    const db = join(tmp.dir, 'demo.db');
    const result = await runDemoUntilCompleted(process.execPath, project, userEnv({ LITEJOBS_DB: db, LITEJOBS_LOG_LEVEL: 'debug', NO_COLOR: '1' }));
    expect(result.code, result.out).toBe(0);
    expect(result.out).toMatch(/receiver\s+http:\/\/127\.0\.0\.1:\d+/);
    // The dashboard's built page ships in the package.
    for (const file of ['index.html', 'assets/app.js', 'assets/app.css', 'assets/favicon.svg']) {
      expect(existsSync(join(project, 'node_modules', 'litejobs', 'dist', 'dashboard', file)), file).toBe(true);
    }
    expect(result.out).toContain('shutting down');
    const conn = new Database(db, { readonly: true });
    try {
      const states = (conn.prepare('SELECT state FROM jobs ORDER BY id').all() as Array<{ state: string }>).map((j) => j.state);
      expect(states).toHaveLength(16);
      expect(states).toContain('completed');
      expect(states).not.toContain('processing'); // drained: nothing left under a lease
    } finally {
      conn.close();
    }
  });

  it('ships the litejobs command: an executable script with a shebang that runs with plain node from the package', async () => {
    expect(manifest.bin).toEqual({ litejobs: './dist/src/cli/bin.js' });
    const bin = join(project, 'node_modules', 'litejobs', manifest.bin.litejobs!);
    expect(readFileSync(bin, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(statSync(bin).mode & 0o111, 'bin.js is not executable').not.toBe(0);
    // Run as a shell runs it: the script itself, found through its shebang.
    const enqueued = await run(bin, ['--db', 'cli.db', 'enqueue', 'hello', '{"who":"cli"}', '--json'], project, userEnv());
    expect(enqueued.code, enqueued.out).toBe(0);
    expect(JSON.parse(enqueued.stdout)).toEqual({ id: 1, created: true });
    const listed = await run(bin, ['jobs', '--db', 'cli.db'], project, userEnv());
    expect(listed.code, listed.out).toBe(0);
    expect(listed.stdout).toMatch(/\n1\s+hello\s+pending\s+0\s/);
  });
});
