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
import { childTarget, serveWorker } from '../lib/worker-child.js';
import { openLitejobs } from '../peers/litejobs.js';

const send = (m: unknown) => process.send!(m);

const handler = async (payload: Payload, ctx: HandlerContext) => {
  const message = await ctx.waitFor('go');
  send({ type: 'woke', i: payload.i, at: wallNow(), message });
};

await serveWorker(openLitejobs(childTarget(process.argv.slice(2)), {}, handler).queue);
