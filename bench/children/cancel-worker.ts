/**
 * The worker of the cancel scenario, in a process of its own.
 * argv: <lease ms> litejobs <db path> | <lease ms> litejobs-pg <url> <schema>.
 * Its handler reports {started, i} when it starts, then waits for its
 * ctx.signal and reports {aborted, i, at, reason}, `at` read in the abort
 * listener on the machine's monotonic clock (wallNow of lib/cross-process.ts,
 * the clock the parent takes its t0 on). Stops and exits on {exit}.
 */
import type { HandlerContext } from '../../src/index.js';
import { wallNow } from '../lib/cross-process.js';
import type { Payload } from '../lib/producer.js';
import { childTarget, serveWorker } from '../lib/worker-child.js';
import { openLitejobs } from '../peers/litejobs.js';

const [leaseText, ...where] = process.argv.slice(2) as [string, ...string[]];
const send = (m: unknown) => process.send!(m);

const handler = (payload: Payload, ctx: HandlerContext) =>
  new Promise<void>((resolve) => {
    const aborted = () => {
      const at = wallNow();
      send({ type: 'aborted', i: payload.i, at, reason: String(ctx.signal.reason) });
      resolve();
    };
    if (ctx.signal.aborted) aborted();
    else ctx.signal.addEventListener('abort', aborted, { once: true });
    send({ type: 'started', i: payload.i });
  });

// The parent picks a lease long enough that no renewal falls within a sample: only the store's change hint can deliver the cancel.
await serveWorker(openLitejobs(childTarget(where), { lease: Number(leaseText) }, handler).queue);
