/**
 * Producer in a process of its own for the cross-process latency scenario.
 * argv: litejobs <db path> | litejobs-pg <url> <schema> | bullmq <queue name>
 * | graphile <url> <schema>. On each {go} message it enqueues one job whose
 * payload carries its send time on the machine's monotonic clock (ms,
 * sub-millisecond precision: wallNow of lib/cross-process.ts).
 */
import { Queue } from 'bullmq';
import { Logger, makeWorkerUtils } from 'graphile-worker';
import { connection, PREFIX } from '../peers/bullmq.js';
import { wallNow } from '../lib/cross-process.js';
import { JOB, openLitejobs } from '../peers/litejobs.js';

const [system, target, schema] = process.argv.slice(2) as [string, string, string | undefined];
const send = (m: unknown) => process.send!(m);

let enqueue: (payload: { i: number; t: number }) => Promise<unknown>;
let close: () => Promise<void>;
if (system === 'litejobs' || system === 'litejobs-pg') {
  const { queue } = openLitejobs(system === 'litejobs' ? target : { connection: target, schema: schema! }, {});
  // The first call connects (PostgreSQL): done before {ready}, so no sample pays for it.
  await queue.stats();
  enqueue = (p) => queue.enqueue(JOB, p);
  close = () => queue.close();
} else if (system === 'graphile') {
  const utils = await makeWorkerUtils({ connectionString: target, schema: schema!, logger: new Logger(() => () => {}) });
  await utils.withPgClient((c) => c.query('SELECT 1'));
  enqueue = (p) => utils.addJob(JOB, p);
  close = async () => {
    await utils.release();
  };
} else {
  const queue = new Queue(target, { connection: connection(), prefix: PREFIX });
  await queue.waitUntilReady();
  enqueue = (p) => queue.add(JOB, p);
  close = () => queue.close();
}

process.on('message', (m: { type: string; i?: number }) => {
  if (m.type === 'go') {
    enqueue({ i: m.i ?? 0, t: wallNow() }).then(
      () => send({ type: 'sent' }),
      (err: Error) => send({ type: 'error', message: err.message }),
    );
  } else if (m.type === 'exit') {
    void close().finally(() => process.exit(0));
  }
});
send({ type: 'ready' });
