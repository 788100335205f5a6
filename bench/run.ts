/**
 * The benchmark runner: `npm run bench -- [scenario …] [--quick] [--rounds N]`.
 *
 * Runs the chosen scenarios (all by default), shows progress on stderr,
 * records the machine and config with the numbers, writes
 * bench/results/<timestamp>.json and regenerates docs/benchmarks.md +
 * docs/benchmarks.svg. Quick and partial runs write to .tmp/bench/ instead
 * (git-ignored), so they never replace the published page.
 * `--render bench/results/<file>.json` redraws docs/benchmarks.md and the
 * SVG from a saved full run without measuring again.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machineInfo, ROOT } from './lib/machine-info.js';
import { renderMarkdown, type RunRecord } from './lib/report.js';
import { checkServers } from './lib/servers.js';
import { printSummary } from './lib/summary.js';
import { chartSvg } from './lib/svg.js';
import type { RunContext, ScenarioResult } from './lib/types.js';
import { SCENARIOS } from './scenarios/index.js';

function usage(): never {
  process.stderr.write(
    `usage: npm run bench -- [${SCENARIOS.map((s) => s.name).join('|')} …] [--quick] [--rounds N]\n` +
      '  --quick     small sizes, one round: the whole run in under a minute; writes .tmp/bench/ only\n' +
      "  --rounds N  rounds per scenario (default: each scenario's own, 3–5)\n" +
      '  --only RE   only the contenders whose label matches RE (a focused measurement; never published)\n' +
      '  --render F  redraw docs/benchmarks.md + .svg from the saved full run F (bench/results/*.json)\n',
  );
  process.exit(2);
}

function parseArgs(argv: string[]) {
  let quick = false;
  let rounds: number | undefined;
  let render: string | undefined;
  let only: RegExp | undefined;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--quick') quick = true;
    else if (a === '--rounds') {
      rounds = Number(argv[++i]);
      if (!Number.isInteger(rounds) || rounds < 1) usage();
    } else if (a.startsWith('--rounds=')) {
      rounds = Number(a.slice(9));
      if (!Number.isInteger(rounds) || rounds < 1) usage();
    } else if (a === '--only') {
      const pattern = argv[++i];
      if (!pattern) usage();
      only = new RegExp(pattern);
    } else if (a === '--render') {
      render = argv[++i];
      if (!render) usage();
    } else if (a === '--help' || a === '-h') usage();
    else if (a.startsWith('-')) usage();
    else names.push(a);
  }
  for (const n of names) {
    if (!SCENARIOS.some((s) => s.name === n)) {
      process.stderr.write(`unknown scenario "${n}"\n`);
      usage();
    }
  }
  return { quick, rounds, names, render, only };
}

/** Writes the report (markdown + SVG) of a run into `dir`. */
function writeReport(run: RunRecord, dir: string, mdName: string): void {
  const svgName = mdName.replace(/\.md$/, '.svg');
  const m = run.machine;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, svgName), chartSvg(run.scenarios, `${m.cpu}, ${m.cores} cores, Node ${m.node}; ${run.date.slice(0, 10)}; ${run.command}`));
  writeFileSync(join(dir, mdName), renderMarkdown(run, svgName));
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (args.render) {
    const saved = JSON.parse(readFileSync(args.render, 'utf8')) as RunRecord;
    if (saved.quick) throw new Error(`${args.render} is a --quick run: only full runs are published`);
    writeReport(saved, join(ROOT, 'docs'), 'benchmarks.md');
    process.stdout.write(`${printSummary(saved.scenarios)}\n\ndocs/benchmarks.md and docs/benchmarks.svg redrawn from ${args.render}\n`);
    return 0;
  }
  const chosen = args.names.length > 0 ? SCENARIOS.filter((s) => args.names.includes(s.name)) : SCENARIOS;
  const t0 = Date.now();
  const stamp = () => {
    const s = Math.round((Date.now() - t0) / 1000);
    return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  };
  const progress = (msg: string) => process.stderr.write(`[bench ${stamp()}] ${msg}\n`);
  const tmpDir = join(ROOT, '.tmp', `bench-${process.pid}`);
  mkdirSync(tmpDir, { recursive: true });
  process.once('SIGINT', () => {
    rmSync(tmpDir, { recursive: true, force: true });
    process.stderr.write('interrupted: no results written (Redis queues / pg-boss schemas of the running round may remain under the ljbench prefix)\n');
    process.exit(130);
  });

  const servers = await checkServers();
  progress(`Redis: ${servers.redis.ok ? `${servers.redis.version} at ${servers.redis.url}` : `not reachable at ${servers.redis.url} (${servers.redis.reason}): BullMQ will be skipped`}`);
  progress(`PostgreSQL: ${servers.postgres.ok ? `${servers.postgres.version} at ${servers.postgres.url}` : `not reachable (${servers.postgres.reason}): pg-boss will be skipped`}`);
  const ctx: RunContext = { quick: args.quick, rounds: args.rounds, tmpDir, servers, progress, ...(args.only ? { only: args.only } : {}) };
  const machine = machineInfo(servers);

  const results: ScenarioResult[] = [];
  const failures: RunRecord['failures'] = [];
  for (const s of chosen) {
    progress(`── ${s.name}: ${s.title}`);
    try {
      results.push(await s.run(ctx));
    } catch (err) {
      failures.push({ scenario: s.name, error: (err as Error).stack ?? String(err) });
      progress(`${s.name} FAILED: ${(err as Error).message}`);
    }
  }
  rmSync(tmpDir, { recursive: true, force: true });

  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  const date = new Date().toISOString();
  const run: RunRecord = { date, command, quick: args.quick, durationMs: Date.now() - t0, machine, scenarios: results, failures };
  const published = !args.quick && !args.only && chosen.length === SCENARIOS.length;
  const file = `${date.replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')}${args.quick ? '.quick' : ''}.json`;
  // A focused run (--only) is for looking, not for the record: its JSON stays in .tmp/bench/ with quick runs.
  const jsonDir = published || (!args.quick && !args.only) ? join(ROOT, 'bench/results') : join(ROOT, '.tmp/bench');
  const docsDir = published ? join(ROOT, 'docs') : join(ROOT, '.tmp/bench');
  const mdName = published ? 'benchmarks.md' : args.quick ? 'benchmarks.quick.md' : 'benchmarks.partial.md';
  mkdirSync(jsonDir, { recursive: true });
  writeFileSync(join(jsonDir, file), `${JSON.stringify(run, null, 2)}\n`);
  writeReport(run, docsDir, mdName);

  process.stdout.write(`\n${printSummary(results)}\n\n`);
  for (const f of failures) process.stdout.write(`scenario ${f.scenario} FAILED: ${f.error.split('\n')[0]}\n`);
  progress(`results: ${join(jsonDir, file).replace(ROOT, '')}; report: ${join(docsDir, mdName).replace(ROOT, '')} (+ .svg)`);
  progress(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const errored = failures.length > 0 || results.some((s) => s.rows.some((r) => r.error));
  return errored ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
