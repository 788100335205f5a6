/**
 * `npm test`: the type check (`npm run typecheck`) and the lint (`npm run
 * lint`) run beside the test suite (`vitest run`) instead of before it. The
 * suite waits on child processes, PostgreSQL and timers often enough that
 * the two checks fit in its gaps (they took ~20 s of wall time before it on
 * two cores), and the type check is incremental (its state under
 * node_modules/.cache), so a second run checks only what changed.
 *
 * The suite's output comes as it runs; each check's, once the suite has
 * ended, under a heading. The exit status is the first failure's (the type
 * check's, then the lint's, then the suite's), 0 when all three pass.
 * Arguments go to vitest: `npm test -- test/unit`.
 */
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs `npm run -s <script>`, its output kept for later. */
function check(script) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (s) => (output += s));
    child.stderr.setEncoding('utf8').on('data', (s) => (output += s));
    child.on('error', (err) => resolve({ script, code: 1, output: `${output}${String(err)}\n`, seconds: 0 }));
    child.on('close', (code, signal) => resolve({ script, code: code ?? (signal ? 1 : 0), output, seconds: (performance.now() - started) / 1000 }));
  });
}

const checks = [check('typecheck'), check('lint')];
const suite = new Promise((resolve) => {
  const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('error', () => resolve(1));
  child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
});

const suiteCode = await suite;
let failed = 0;
for (const { script, code, output, seconds } of await Promise.all(checks)) {
  process.stdout.write(`\n${script}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds.toFixed(1)} s\n`);
  if (output.trim() !== '') process.stdout.write(`${output.trimEnd()}\n`);
  if (code !== 0 && failed === 0) failed = code;
}
process.exitCode = failed || suiteCode;
