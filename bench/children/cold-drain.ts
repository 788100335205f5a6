/**
 * The cold scenario's worker, in a process of its own started for this one
 * drain: nothing compiled, cached, connected or prepared before it.
 * argv: litejobs <db path> <n> | litejobs-pg <url> <schema> <n> | graphile <url> <schema> <n>.
 * The jobs are enqueued beforehand by the parent. Timed from just before the
 * queue (or runner) is created, after this script's imports, until it has
 * stopped with every outcome written: `ms`; `first` when the 1,000th
 * handler ran. Reports {done, ms, first} and exits.
 *
 * litejobs is loaded as a user's process loads it: the built package
 * (dist/, JavaScript), not the sources through the TypeScript loader, whose
 * hooks would be timed for every module litejobs loads on first use.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../lib/machine-info.js';
import { pgClient } from '../lib/servers.js';
import { startGraphile } from '../peers/graphile.js';
import { JOB } from '../peers/litejobs.js';

/** The first jobs, whose rate is set against the rest's: how soon it reaches full speed. */
export const FIRST = 1000;
const CONCURRENCY = 16;

const [system, a, b, c] = process.argv.slice(2) as [string, string, string, string | undefined];
const n = Number(system === 'litejobs' ? b : c);
let handled = 0;
let first = 0;
let reached!: () => void;
const done = new Promise<void>((resolve) => (reached = resolve));
const onJob = () => {
  if (++handled === FIRST) first = performance.now();
  if (handled === n) reached();
};

const litejobs = system === 'graphile' ? undefined : ((await import(pathToFileURL(join(ROOT, 'dist/src/index.js')).href)) as typeof import('../../src/index.js'));

const t0 = performance.now();
if (system === 'graphile') {
  const runner = await startGraphile(a, b, 'batched', CONCURRENCY, onJob);
  await done;
  await runner.stop();
  // As the drain scenario does: the clock stops once every job is gone (a completion deletes it).
  const client = await pgClient(a);
  try {
    while (Number(((await client.query(`SELECT count(*) AS n FROM "${b}"._private_jobs`)).rows[0] as { n?: string } | undefined)?.n) > 0) await new Promise((r) => setTimeout(r, 1));
  } finally {
    await client.end();
  }
} else {
  const { createQueue, defineJob } = litejobs!;
  const queue = createQueue({
    ...(system === 'litejobs' ? { path: a } : { connection: a, schema: b }),
    logger: false,
    concurrency: CONCURRENCY,
    jobs: [defineJob({ name: JOB, handler: onJob })],
  });
  await queue.start();
  await done;
  await queue.close();
}
const ms = performance.now() - t0;
process.send!({ type: 'done', ms, first: first - t0 }, () => process.exit(0));
