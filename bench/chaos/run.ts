/**
 * `npm run chaos -- --kills 100`: a producer and several worker processes on
 * one litejobs file, workers SIGKILLed at random moments and replaced, then a
 * drain and a verdict from the file, the handlers' logs and each process's
 * lifetime. One line of figures on stdout; exit 0 on PASS, 1 on FAIL (details
 * on stderr, the run's folder kept), 2 on bad flags. Bounded in time: a stuck
 * drain or an overrun is a FAIL, never a hang.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopChild, waitForMessage, type ChaosChild } from './child.js';
import { collect } from './collect.js';
import { crashLoop } from './crash-loop.js';
import { Fleet } from './fleet.js';
import { CONCURRENCY, hardTimeoutMs, LEASE_MS, parseOptions, seededRandom, type ChaosOptions } from './options.js';
import { failureDetails, figuresLine } from './report.js';
import { verdict } from './verdict.js';

const START_MS = 30_000;
const STOP_MS = 10_000;

function optionsOrExit(): ChaosOptions {
  try {
    return parseOptions(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return process.exit(2);
  }
}

/** The file and the folder for the logs: a fresh temp folder, or next to a --db path (which must not exist yet). */
function workspace(db: string | null): { db: string; dir: string; temporary: boolean } {
  if (db === null) {
    const dir = mkdtempSync(join(tmpdir(), 'litejobs-chaos-'));
    return { db: join(dir, 'jobs.db'), dir, temporary: true };
  }
  const path = resolve(db);
  if (existsSync(path)) throw new Error(`--db ${path} exists: the verdict needs a file of this run's jobs only`);
  mkdirSync(`${path}.chaos`, { recursive: false });
  return { db: path, dir: `${path}.chaos`, temporary: false };
}

const options = optionsOrExit();
const started = Date.now();
const say = options.quiet ? () => undefined : (line: string) => process.stderr.write(`[chaos] ${line}\n`);
const { db, dir, temporary } = (() => {
  try {
    return workspace(options.db);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return process.exit(2);
  }
})();
say(
  `seed ${options.seed}; ${options.kills} kills, ${options.workers} workers × ${CONCURRENCY}, lease ${LEASE_MS} ms, ` +
    `pause ${options.intervalMs.join('–')} ms, ${options.rate} jobs/s; file ${db}`,
);

const fleet = new Fleet({ db, dir, workers: options.workers, rate: options.rate, seed: options.seed });
let reader: Database.Database | undefined;
let finishing = false;
const hardLimit = hardTimeoutMs(options);
const hardTimer = setTimeout(() => void finish(`hard timeout: the run was still going after ${hardLimit / 1000}s`), hardLimit);

/** Jobs in the file and how many of them are completed (read-only, while the children write). */
function counts(): { jobs: number; completed: number } {
  reader ??= new Database(db, { readonly: true, fileMustExist: true });
  return reader.prepare<[], { jobs: number; completed: number }>("SELECT count(*) AS jobs, count(*) FILTER (WHERE state = 'completed') AS completed FROM jobs").get()!;
}

/** Waits until every job in the file is completed; returns how many are not (0 unless the drain timed out). */
async function drain(): Promise<number> {
  const deadline = Date.now() + options.drainTimeoutMs;
  for (;;) {
    const { jobs, completed } = counts();
    if (jobs === completed || Date.now() > deadline) return jobs - completed;
    fleet.refill(false);
    await sleep(100);
  }
}

/** Stops children gracefully, once they are up: a child not yet started would die of SIGTERM's default action. */
async function stop(children: ChaosChild[]): Promise<void> {
  await Promise.all(children.map((c) => waitForMessage(c, 'ready', START_MS).catch(() => undefined)));
  await Promise.all(children.map((c) => stopChild(c, STOP_MS)));
}

async function finish(abort?: string): Promise<never> {
  if (finishing) return new Promise<never>(() => undefined);
  finishing = true;
  clearTimeout(hardTimer);
  reader?.close();
  for (const c of fleet.alive()) {
    c.life.stopRequested = true; // not a chaos kill: the run is being abandoned
    c.proc.kill('SIGKILL');
  }
  await Promise.race([Promise.all(fleet.all.map((c) => c.exited)), sleep(5000)]);
  const elapsedMs = Date.now() - started;
  let pass = false;
  try {
    const input = collect(db, dir, fleet.all.map((c) => c.life), LEASE_MS);
    const v = verdict(input);
    pass = v.pass && abort === undefined;
    if (abort) process.stderr.write(`chaos: ${abort}\n`);
    const details = failureDetails(v, input.history, input.integrity, (p) => fleet.stderrOf(p));
    if (details.length) process.stderr.write(`${details.join('\n')}\n`);
    process.stdout.write(`${figuresLine(v, { seed: options.seed, elapsedMs, ...(abort ? { abort } : {}) })}\n`);
  } catch (err) {
    process.stderr.write(`chaos: ${abort ?? ''} the verdict could not be read: ${(err as Error).stack ?? String(err)}\n`);
    process.stdout.write(`chaos: seed=${options.seed} elapsed=${Math.round(elapsedMs / 1000)}s verdict=FAIL\n`);
  }
  if (pass && temporary) rmSync(dir, { recursive: true, force: true });
  if (!pass) process.stderr.write(`chaos: kept ${dir} (file ${db}); repeat with --seed ${options.seed}\n`);
  return process.exit(pass ? 0 : 1);
}

try {
  await Promise.all([fleet.producer, ...fleet.workers].map((c) => waitForMessage(c, 'ready', START_MS)));
  say(`all started in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  await crashLoop(fleet, {
    kills: options.kills,
    intervalMs: options.intervalMs,
    random: seededRandom(options.seed),
    say,
    progress: () => {
      const c = counts();
      return `jobs ${c.jobs}, completed ${c.completed}`;
    },
  });
  say('stopping the producer, draining');
  await stop([fleet.producer]);
  const drainStarted = Date.now();
  const left = await drain();
  say(`${left ? 'drain gave up' : 'drained'} after ${((Date.now() - drainStarted) / 1000).toFixed(1)}s; stopping the workers`);
  await stop(fleet.workers);
  await finish(left > 0 ? `drain stuck: ${left} jobs still not completed after ${options.drainTimeoutMs / 1000}s` : undefined);
} catch (err) {
  await finish(`run aborted: ${(err as Error).stack ?? String(err)}`);
}
