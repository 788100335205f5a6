/**
 * The chaos operator process: acts on jobs from outside the workers, as a
 * person at the dashboard or a script would, while the workers run them and
 * get killed: cancel, run again (often right after a cancel of a running
 * job, put ahead of the backlog: the habit that once ran a job twice at
 * once), remove, update,
 * promote, and the custom machine's `job.requeue` of a running job. Half
 * its picks are running jobs. Each action that took effect is one line of
 * its log (`<action> <job id> <ms>`), written before the next; refusals
 * (the job moved on, finished, is held by a run) are the normal answer to a
 * race and are not logged.
 *
 * `node --import tsx bench/chaos/operator.ts '<OperatorConfig JSON>'`
 * stdout: `{"type":"ready"}`. SIGTERM: stop acting, close, exit 0.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { queueTarget } from '../../src/cli/open-queue.js';
import { createQueue, InvalidTransitionError, JobNotFoundError } from '../../src/index.js';
import { CUSTOM_JOB_NAME, OPERATOR_EVERY_MS, seededRandom, type OperatorConfig } from './options.js';
import { exitWithParent } from './parent-watch.js';

exitWithParent();
const config = JSON.parse(process.argv[2] ?? '') as OperatorConfig;
const random = seededRandom(config.seed);
const log = openSync(config.log, 'a');
const queue = createQueue({ ...queueTarget(config.db), name: config.label, logger: pino({ level: 'error' }, pino.destination(2)) });

const ACTIONS = ['cancel', 'cancel', 'runAgain', 'cancelRunAgain', 'cancelRunAgain', 'remove', 'update', 'promote', 'requeue', 'requeue'] as const;
type Action = (typeof ACTIONS)[number];

const done = (action: string, id: number): void => void writeSync(log, `${action} ${id} ${Date.now()}\n`);

async function act(action: Action, id: number): Promise<void> {
  switch (action) {
    case 'cancel':
      await queue.cancel(id);
      return done('cancel', id);
    case 'runAgain':
      await queue.runAgain(id);
      return done('runAgain', id);
    case 'cancelRunAgain':
      await queue.cancel(id);
      done('cancel', id);
      await queue.runAgain(id);
      done('runAgain', id);
      // Ahead of the backlog, so that a worker takes it at once: while the first run may still go on.
      await queue.update(id, { priority: 9 });
      return done('update', id);
    case 'remove':
      await queue.remove(id);
      return done('remove', id);
    case 'update':
      await queue.update(id, { priority: Math.floor(random() * 3) });
      return done('update', id);
    case 'promote':
      await queue.promote(id);
      return done('promote', id);
    case 'requeue':
      await queue.send(id, { type: 'job.requeue' });
      return done('requeue', id);
  }
}

let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
});
process.stdout.write(`${JSON.stringify({ type: 'ready' })}\n`);

let newest = 0;
let running: number[] = [];
for (let turn = 0; !stopping; turn++) {
  // What is running now, and the newest id, every few turns (a listing by state reads much of the table).
  // The custom machine's runs are the long ones, and the oldest claims the likeliest to have started
  // (a newer one may wait in its process's buffer): those an action meets while their handler goes on.
  if (turn % 4 === 0) {
    running = (await queue.listJobs({ state: 'processing', name: CUSTOM_JOB_NAME, limit: 4 })).map((j) => j.id);
    newest = (await queue.listJobs({ newest: true, limit: 1 }))[0]?.id ?? newest;
  }
  const action = ACTIONS[Math.floor(random() * ACTIONS.length)]!;
  const id = random() < 0.5 && running.length > 0 ? running[Math.floor(random() * running.length)]! : Math.max(1, newest - Math.floor(random() * 500));
  if (newest > 0) {
    try {
      await act(action, id);
    } catch (err) {
      if (!(err instanceof InvalidTransitionError || err instanceof JobNotFoundError)) throw err;
    }
  }
  await sleep(OPERATOR_EVERY_MS);
}
await queue.close();
closeSync(log);
process.exit(0);
