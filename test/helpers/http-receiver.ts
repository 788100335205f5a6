/** A real HTTP server on 127.0.0.1 (port 0) that records what it receives, closed after each test. */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { afterEach } from 'vitest';

export interface Received {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Resolves when the request's connection closes (answered with `connection: close`, aborted by the client…). */
  closed: Promise<void>;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  received: Received[];
}

/** `respond` gets the request number (0, 1, …); leave `res` alone to never answer. */
export type Respond = (n: number, req: Received, res: ServerResponse) => void;

export function useReceivers(): { start(respond: Respond): Promise<Receiver>; closedPort(): Promise<number> } {
  const servers: Array<ReturnType<typeof createServer>> = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  return {
    async start(respond) {
      const received: Received[] = [];
      const server = createServer((req: IncomingMessage, res) => {
        const closed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const entry: Received = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), closed };
          received.push(entry);
          respond(received.length - 1, entry, res);
        });
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      return { origin: `http://127.0.0.1:${port}`, received };
    },
    /** A port nothing listens on: taken from the system, then released. */
    async closedPort() {
      const server = createNetServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      await new Promise((resolve) => server.close(resolve));
      return port;
    },
  };
}
