/**
 * Measures litejobs' memory in a clean process (run with --expose-gc).
 * argv: <db path> <jobs to run>. Opens the queue on a file that already holds
 * the backlog, runs `jobs` no-op jobs at concurrency 16, stops the workers
 * (the queue stays open) and reports RSS and heap over IPC.
 */
import { sleep } from '../lib/stats.js';
import { openLitejobs } from '../peers/litejobs.js';

const [path, jobsArg] = process.argv.slice(2) as [string, string];
const toRun = Number(jobsArg);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

async function settle(): Promise<NodeJS.MemoryUsage> {
  gc();
  await sleep(100);
  gc();
  return process.memoryUsage();
}

const before = await settle();
let handled = 0;
let reached!: () => void;
const done = new Promise<void>((resolve) => (reached = resolve));
const { queue } = openLitejobs(path, { concurrency: 16 }, () => {
  if (++handled === toRun) reached();
});
await queue.start();
await done;
await queue.stop();
const after = await settle();
process.send!({ type: 'memory', rssBefore: before.rss, rss: after.rss, heapUsed: after.heapUsed, external: after.external, handled });
await queue.close();
process.exit(0);
