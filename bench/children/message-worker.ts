/**
 * The worker of the messages scenario, in a process of its own.
 * argv: litejobs <db path> | litejobs-pg <url> <schema>.
 * Its handler waits for a message on 'go' (ctx.waitFor): the first run parks
 * the job; the message wakes it, and the run that gets the message reports
 * {woke, i, at}, `at` read on the machine's monotonic clock (wallNow, the
 * clock the parent takes its t0 on). Stops and exits on {exit}.
 */
import type { HandlerContext } from '../../src/index.js';
import { wallNow } from '../lib/cross-process.js';
import type { Payload } from '../lib/producer.js';
import { sleep } from '../lib/stats.js';
import { openLitejobs } from '../peers/litejobs.js';

const [system, target, schema] = process.argv.slice(2) as [string, string, string | undefined];
const send = (m: unknown) => process.send!(m);

const handler = async (payload: Payload, ctx: HandlerContext) => {
  const message = await ctx.waitFor('go');
  send({ type: 'woke', i: payload.i, at: wallNow(), message });
};

const { queue } = openLitejobs(system === 'litejobs' ? target : { connection: target, schema: schema! }, {}, handler);
await queue.start();
await queue.stats(); // connected (PostgreSQL) before {ready}
await sleep(50); // the change watch (WAL watch; LISTEN connection) is up

process.on('message', (m: { type: string }) => {
  if (m.type === 'exit') void queue.close().finally(() => process.exit(0));
});
send({ type: 'ready' });
