/**
 * A TCP proxy in front of the test PostgreSQL server, for tests that need a
 * connection to break at one exact point, which a server restart hits only
 * by chance: after the server has committed a transaction and before the
 * client hears so. Bytes pass through unchanged; the proxy only watches the
 * client's messages for the statement it was told to wait for.
 */
import { once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import { afterEachTest } from './after-each.js';
import { pgUrl } from './postgres.js';

/** The frontend Query message `COMMIT`: 'Q', its length (4 + 7), the text and its NUL. */
const COMMIT_QUERY = Buffer.concat([Buffer.from([0x51, 0, 0, 0, 11]), Buffer.from('COMMIT\0')]);

export interface PgProxy {
  /** The test server's URL, through the proxy. */
  readonly url: string;
  /**
   * Arms the proxy: the next COMMIT reaches the server, which commits and
   * replies, and then that connection is cut before the reply is passed on.
   * Resolves once it has been cut.
   */
  loseNextCommitReply(): Promise<void>;
  /**
   * The same for the next message whose bytes contain `text` (an autocommitted
   * statement: the server replies once it has committed it).
   */
  loseNextReply(text: string): Promise<void>;
  /** Stops listening and cuts every connection: new ones are refused. */
  close(): Promise<void>;
}

const open: PgProxy[] = [];
afterEachTest(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

export async function startPgProxy(): Promise<PgProxy> {
  const target = new URL(pgUrl());
  const sockets = new Set<Socket>();
  let armed: { marker: Buffer; cut: () => void } | undefined;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    /** Set once this connection carried the armed COMMIT: the server's next bytes are its reply. */
    let cutOnReply: (() => void) | undefined;
    client.on('data', (chunk: Buffer) => {
      if (armed && chunk.includes(armed.marker)) {
        cutOnReply = armed.cut;
        armed = undefined;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (cutOnReply) {
        client.destroy();
        upstream.destroy();
        cutOnReply();
        return;
      }
      client.write(chunk);
    });
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => {
        b.destroy();
        sockets.delete(a);
      });
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const url = new URL(pgUrl());
  url.host = `127.0.0.1:${port}`;
  let closed = false;
  const arm = (marker: Buffer) =>
    new Promise<void>((resolve) => {
      armed = { marker, cut: resolve };
    });
  const proxy: PgProxy = {
    url: url.toString(),
    loseNextCommitReply: () => arm(COMMIT_QUERY),
    loseNextReply: (text) => arm(Buffer.from(text)),
    async close() {
      if (closed) return;
      closed = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await stopped;
    },
  };
  open.push(proxy);
  return proxy;
}
