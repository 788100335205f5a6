/**
 * `npm run chaos -- --kills 100`: a producer and several worker processes on
 * one litejobs store (a SQLite file, or with `--db postgres://…` a fresh
 * schema on a PostgreSQL server), workers SIGKILLed at random moments and
 * replaced, then a drain and a verdict from the store, the handlers' logs
 * and each process's lifetime. One line of figures on stdout; exit 0 on
 * PASS, 1 on FAIL (details on stderr, the run's folder and store kept), 2 on
 * bad flags. Bounded in time: a stuck drain or an overrun is a FAIL, never a
 * hang.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { stopChild, waitForMessage, type ChaosChild } from './child.js';
import { collect, feedLogFile } from './collect.js';
import { existsSync, readFileSync } from 'node:fs';
import { parseFeedLog } from './feed-log.js';
import { feedVerdict } from './feed-verdict.js';
import { crashLoop } from './crash-loop.js';
import { Fleet } from './fleet.js';
import { CONCURRENCY, hardTimeoutMs, LEASE_MS, parseOptions, seededRandom, type ChaosOptions } from './options.js';
import { failureDetails, figuresLine } from './report.js';
import { openTarget, type ChaosTarget } from './target.js';
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

/** The run's store, checked to be its own before any child starts; exits 2 when it is not. */
async function targetOrExit(db: string | null): Promise<ChaosTarget> {
  try {
    const target = openTarget(db);
    await target.prepare();
    return target;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return process.exit(2);
  }
}

const options = optionsOrExit();
const started = Date.now();
const say = options.quiet ? () => undefined : (line: string) => process.stderr.write(`[chaos] ${line}\n`);
const target = await targetOrExit(options.db);
say(
  `seed ${options.seed}; ${options.kills} kills, ${options.workers} workers × ${CONCURRENCY}, lease ${LEASE_MS} ms, ` +
    `pause ${options.intervalMs.join('–')} ms, ${options.rate} jobs/s; ${target.label}`,
);

const fleet = new Fleet({ db: target.db, dir: target.dir, workers: options.workers, rate: options.rate, seed: options.seed });
let finishing = false;
const hardLimit = hardTimeoutMs(options);
const hardTimer = setTimeout(() => void finish(`hard timeout: the run was still going after ${hardLimit / 1000}s`), hardLimit);

/** Waits until every job in the store has finished (completed, or dead for the failing ones); returns how many have not (0 unless the drain timed out). */
async function drain(): Promise<number> {
  const deadline = Date.now() + options.drainTimeoutMs;
  for (;;) {
    const { jobs, finished } = await target.counts();
    if (jobs === finished || Date.now() > deadline) return jobs - finished;
    fleet.refill(false);
    await sleep(100);
  }
}

/** Waits until the watcher has been given every change the store holds (20 s at most); returns how many it has not. */
async function feedCaughtUp(): Promise<number> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { jobs, history } = await target.read();
    const log = feedLogFile(target.dir);
    const missing = feedVerdict(parseFeedLog(existsSync(log) ? readFileSync(log, 'utf8') : ''), jobs, history).lost.length;
    if (missing === 0 || Date.now() > deadline) return missing;
    fleet.refill(false);
    await sleep(250);
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
  for (const c of fleet.alive()) {
    c.life.stopRequested = true; // not a chaos kill: the run is being abandoned
    c.proc.kill('SIGKILL');
  }
  await Promise.race([Promise.all(fleet.all.map((c) => c.exited)), sleep(5000)]);
  const elapsedMs = Date.now() - started;
  let pass = false;
  try {
    const input = await collect(target, fleet.all.map((c) => c.life), LEASE_MS);
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
  let kept: string | null = null;
  try {
    kept = await target.finish(pass);
  } catch (err) {
    process.stderr.write(`chaos: could not clean up after the run: ${(err as Error).message}\n`);
  }
  if (!pass) process.stderr.write(`chaos: kept ${kept}; repeat with --seed ${options.seed}\n`);
  return process.exit(pass ? 0 : 1);
}

try {
  await Promise.all([fleet.producer, ...fleet.workers, fleet.operator, fleet.watcher].map((c) => waitForMessage(c, 'ready', START_MS)));
  say(`all started in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  await crashLoop(fleet, {
    kills: options.kills,
    intervalMs: options.intervalMs,
    random: seededRandom(options.seed),
    say,
    progress: async () => {
      const c = await target.counts();
      return `jobs ${c.jobs}, finished ${c.finished}`;
    },
  });
  say('stopping the producer and the operator, draining');
  await stop([fleet.producer, fleet.operator]);
  const drainStarted = Date.now();
  const left = await drain();
  say(`${left ? 'drain gave up' : 'drained'} after ${((Date.now() - drainStarted) / 1000).toFixed(1)}s; stopping the workers`);
  await stop(fleet.workers);
  // The workers' last moves (hand-backs as they stop) are changes too: the watcher stops once it has them all.
  const unread = await feedCaughtUp();
  say(unread ? `the watcher still lacks ${unread} changes` : 'the watcher has every change');
  await stop([fleet.watcher]);
  await finish(left > 0 ? `drain stuck: ${left} jobs still not finished after ${options.drainTimeoutMs / 1000}s` : undefined);
} catch (err) {
  await finish(`run aborted: ${(err as Error).stack ?? String(err)}`);
}
