/**
 * The dashboard scenario's server, in a process of its own so the client
 * timing requests never shares its event loop: `startServer` on a given
 * file, no workers. argv: <db path>. Sends {type:'ready', url}; exits on {exit}.
 */
import { pino } from 'pino';
import { startServer } from '../../src/http/index.js';
import { createQueue } from '../../src/index.js';

const [path] = process.argv.slice(2) as [string];
const queue = createQueue({ path, name: 'bench', logger: pino({ level: 'silent' }) });
const server = await startServer({ queue, host: '127.0.0.1', port: 0 });
process.send!({ type: 'ready', url: server.url });
process.on('message', async (m: { type?: string }) => {
  if (m.type !== 'exit') return;
  await server.close();
  await queue.close();
  process.exit(0);
});
