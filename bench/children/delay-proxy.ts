/**
 * A TCP proxy that adds round-trip time, in a process of its own (its event
 * loop is not the workers'). argv: <target host> <target port> <rtt ms>.
 * Sends {type:'ready', port} once listening on 127.0.0.1; answers {cpu} with
 * the CPU it has used ({cpu, ms}).
 *
 * This kernel has no netem qdisc, so `tc` cannot delay loopback traffic:
 * every chunk the server sends is held `rtt` ms before it is written to the
 * client (one delay per round trip: a request goes at once, its answer comes
 * back late), in order, per connection. Node's timers have a 1 ms grain, so
 * an added 1 ms comes out at 1–1.2 ms. The server's backpressure pauses the
 * client and the client's pauses the server.
 */
import { createConnection, createServer, type Socket } from 'node:net';

const [host, portText, rttText] = process.argv.slice(2) as [string, string, string];
const rtt = Number(rttText);

function pipeDelayed(server: Socket, client: Socket): void {
  const queue: Array<{ at: number; chunk: Buffer }> = [];
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const flush = () => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && queue[0]!.at <= now) {
      if (!client.write(queue.shift()!.chunk)) {
        server.pause();
        client.once('drain', () => server.resume());
      }
    }
    if (queue.length > 0) timer = setTimeout(flush, Math.max(0, queue[0]!.at - now));
    else if (ended) client.end();
  };
  server.on('data', (chunk) => {
    queue.push({ at: performance.now() + rtt, chunk });
    timer ??= setTimeout(flush, rtt);
  });
  server.on('end', () => {
    ended = true;
    if (queue.length === 0 && timer === undefined) client.end();
  });
}

const proxy = createServer((client) => {
  client.setNoDelay(true);
  const server = createConnection({ host, port: Number(portText) });
  server.setNoDelay(true);
  client.pipe(server);
  pipeDelayed(server, client);
  const close = () => {
    client.destroy();
    server.destroy();
  };
  client.on('error', close);
  server.on('error', close);
  client.on('close', () => server.end());
});
proxy.listen(0, '127.0.0.1', () => {
  const address = proxy.address();
  process.send!({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('message', (m: { type?: string }) => {
  if (m.type === 'exit') process.exit(0);
  if (m.type === 'cpu') {
    const used = process.cpuUsage();
    process.send!({ type: 'cpu', ms: (used.user + used.system) / 1000 });
  }
});
process.on('disconnect', () => process.exit(0));
