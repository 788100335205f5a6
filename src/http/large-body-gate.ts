/**
 * Bodies larger than one job's (batches, big flows) are read, parsed and
 * stored one at a time; smaller requests never wait.
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
import type { FastifyInstance, FastifyRequest } from 'fastify';

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

export function gateLargeBodies(app: FastifyInstance, threshold: number, arriveMs = LARGE_BODY_ARRIVE_MS): void {
  const gate = new OneAtATime();
  app.addHook('preParsing', async (request, reply, payload) => {
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
  });
}
