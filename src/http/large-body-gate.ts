/**
 * Large bodies (batches over one job's limit, big flows) are read, parsed
 * and stored one at a time; other requests never wait.
 *
 * Parsing and storing a 16 MiB batch holds several copies of it (the text,
 * the parsed objects, the rows) and keeps the event loop busy for a while:
 * three at once held three times the memory, and `/healthz` waited for all
 * three. One at a time, memory holds one batch and a health check waits for
 * one at most. A waiting request's body stays unread in the socket (TCP
 * pushes back on the client). A body must arrive whole within `arriveMs` of
 * its turn, or its connection is closed: a client that stalls mid-body holds
 * the way that long at most, even in an application whose server has no
 * request timeout (fastify's default).
 */
import type { FastifyRequest, preParsingAsyncHookHandler } from 'fastify';

/** A FIFO of one: `enter` resolves when every earlier caller has left. */
class OneAtATime {
  private busy = false;
  private readonly waiting: Array<() => void> = [];

  enter(): Promise<void> {
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy = false;
  }
}

/** Larger than `threshold` bytes, or of a length not announced (chunked): it could be anything up to the route's limit. */
function isLarge(request: FastifyRequest, threshold: number): boolean {
  const length = request.headers['content-length'];
  if (length === undefined) return request.headers['transfer-encoding'] !== undefined;
  return Number(length) > threshold;
}

/** How long a large body may take to arrive once it is its turn, ms (as long as `startServer`'s request timeout). */
export const LARGE_BODY_ARRIVE_MS = 30_000;

/** A preParsing hook that takes bodies over `threshold` bytes through the gate. */
export type GateHook = preParsingAsyncHookHandler;

/**
 * One gate for a server's routes; `over(threshold)` is a route's preParsing
 * hook. Routes opt in (batches over one job's limit, flows over 64 KiB: a
 * flow's jobs cost per byte more than a batch's); a hook's route does not,
 * so no unauthenticated request waits in it or makes others wait.
 */
export interface LargeBodyGate {
  over(threshold: number): GateHook;
}

export function createLargeBodyGate(arriveMs = LARGE_BODY_ARRIVE_MS): LargeBodyGate {
  const gate = new OneAtATime();
  return {
    over: (threshold) => async (request, reply, payload) => {
      if (!isLarge(request, threshold)) return payload;
      await gate.enter();
      const socket = request.raw.socket;
      if (socket === null || socket.destroyed) {
        // The client left while it waited: its body will never come.
        gate.leave();
        return payload;
      }
      const stalled = setTimeout(() => socket.destroy(), arriveMs);
      payload.once('end', () => clearTimeout(stalled));
      // `close` comes once the answer is sent, or the connection is lost: either way this body is done with.
      reply.raw.once('close', () => {
        clearTimeout(stalled);
        gate.leave();
      });
      return payload;
    },
  };
}
