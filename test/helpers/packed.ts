/**
 * The package as `npm pack` makes it, for the tests that install it as a
 * user would: the sources copied to a folder of their own, built there unless
 * this checkout's dist/ was built from exactly them, and packed.
 */
import { execFile, spawn } from 'node:child_process';
import { cpSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Run {
  code: number | null;
  out: string;
  stdout: string;
}

/** Runs a command to its end; never throws, so a failure shows its output in the assertion. */
export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, out: `${stdout}${stderr}${err && typeof err.code !== 'number' ? String(err) : ''}` });
    });
  });
}

/** The environment of a user's shell: no loader or module path inherited from the test runner. */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  delete env.NODE_PATH;
  return env;
}

/** What the build and the pack read: copied, so that the build's `rm -rf dist` never pulls the page from under the browser tests running beside a packing test. */
const SOURCES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE', 'src', 'machines', 'dashboard', 'scripts'];

export interface Packed {
  /** The tarball's path. */
  tarball: string;
  /** The paths it holds, as `npm pack` lists them. */
  files: string[];
}

/** Packs the package into `dir` (its copy of the sources goes to `dir/checkout`). */
export async function packPackage(dir: string): Promise<Packed> {
  const checkout = join(dir, 'checkout');
  for (const path of SOURCES) cpSync(join(root, path), join(checkout, path), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  // dist/ built from exactly these sources (its stamp says so: after `npm ci`
  // it is, as `prepare` built it) is packed as it is; otherwise the copy is
  // built, starting by deleting dist/ so that nothing stale gets packed (a
  // full build is ~30 s of CPU). Then no scripts on pack: `prepare` would
  // only build a second time.
  const stamp = await run(process.execPath, [join(root, 'scripts', 'build-stamp.mjs'), 'check'], root);
  if (stamp.code === 0) cpSync(join(root, 'dist'), join(checkout, 'dist'), { recursive: true });
  else {
    const built = await run('npm', ['run', 'build'], checkout);
    if (built.code !== 0) throw new Error(`the build failed:\n${built.out}`);
  }
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], checkout);
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.out}`);
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: join(dir, info!.filename), files: info!.files.map((f) => f.path) };
}

/**
 * Runs `litejobs demo` from an installed package with `node` until its first
 * job completes, then sends SIGTERM: the demo must drain and exit.
 */
export function runDemoUntilCompleted(node: string, project: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  const bin = join('node_modules', 'litejobs', 'dist', 'src', 'cli', 'bin.js');
  return new Promise((resolve, reject) => {
    // No sample schedule: its slot every 30 s would add a job whenever the run crosses one.
    const child = spawn(node, [bin, 'demo', '--port', '0', '--seed', '38', '--rate', '0', '--no-schedule'], { cwd: project, env });
    let out = '';
    let stopped = false;
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      // The demo logs readable lines, piped or not: stop once a job has completed.
      if (!stopped && /"to":"completed"|job processing → completed/.test(out)) {
        stopped = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}
