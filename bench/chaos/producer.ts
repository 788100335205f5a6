/**
 * The chaos producer process: enqueues chaos jobs (one in FAIL_EVERY an
 * always-failing one) at a steady rate, and
 * records each id only after its `enqueue` (or `enqueueMany`) promise has
 * resolved. An id in the file is therefore a job litejobs acknowledged, and
 * the verdict holds litejobs to every one of them, whenever this process is
 * killed.
 *
 * `node --import tsx bench/chaos/producer.ts '<ProducerConfig JSON>'`
 * stdout: `{"type":"ready"}`, then `{"type":"stopped","acknowledged":n}` after SIGTERM.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { queueTarget } from '../../src/cli/open-queue.js';
import { createQueue } from '../../src/index.js';
import { CUSTOM_EVERY, CUSTOM_JOB_NAME, FAIL_EVERY, FAIL_JOB_NAME, JOB_NAME, type ProducerConfig } from './options.js';
import { exitWithParent } from './parent-watch.js';

/** Jobs per round: one round is either this many concurrent `enqueue` calls or one `enqueueMany`. */
const ROUND = 10;
/** One job in FAIL_EVERY always fails (then dies after its attempts); one in CUSTOM_EVERY is of the custom machine. */
const nameOf = (round: number, i: number) => {
  const n = round * ROUND + i;
  if (n % FAIL_EVERY === 0) return FAIL_JOB_NAME;
  return n % CUSTOM_EVERY === FAIL_EVERY / 2 ? CUSTOM_JOB_NAME : JOB_NAME;
};

exitWithParent();
const config = JSON.parse(process.argv[2] ?? '') as ProducerConfig;
const acked = openSync(config.acked, 'a');
const queue = createQueue({ ...queueTarget(config.db), name: config.label, logger: pino({ level: 'error' }, pino.destination(2)) });

let acknowledged = 0;
/** Called only once litejobs has acknowledged `ids`; one write per call, so a kill leaves whole lines. */
function record(ids: number[]): void {
  writeSync(acked, ids.map((id) => `${id}\n`).join(''));
  acknowledged += ids.length;
}

let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
});

process.stdout.write(`${JSON.stringify({ type: 'ready' })}\n`);
const roundMs = (ROUND * 1000) / config.rate;
for (let round = 0; !stopping; round++) {
  const started = Date.now();
  if (round % 2 === 0) {
    // Each id is recorded as soon as its own promise resolves, not when the whole round has.
    await Promise.all(
      Array.from({ length: ROUND }, (_, i) => queue.enqueue(nameOf(round, i), { round, i }).then((r) => record([r.id]))),
    );
  } else {
    const results = await queue.enqueueMany(Array.from({ length: ROUND }, (_, i) => ({ name: nameOf(round, i), payload: { round, i } })));
    record(results.map((r) => r.id));
  }
  // Batched fsync: once per round is enough, an id is never written before its acknowledgement.
  fsyncSync(acked);
  const rest = started + roundMs - Date.now();
  if (rest > 0) await sleep(rest);
}
await queue.close();
fsyncSync(acked);
closeSync(acked);
process.stdout.write(`${JSON.stringify({ type: 'stopped', acknowledged })}\n`);
process.exit(0);
