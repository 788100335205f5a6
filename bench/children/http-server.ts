/**
 * One server of the http scenario, in a process of its own so that the load
 * generator never shares its event loop.
 * argv: <floor | litejobs-normal | litejobs-full | bullmq> [db path | BullMQ queue name].
 * Listens on 127.0.0.1 (a free port) and sends {type:'ready', url}; on {exit}
 * it closes the server (requests in flight finish), then the queue, and exits.
 *
 * Every variant answers `POST /v1/hooks/:name`:
 * - floor: bare fastify 5, parses the JSON body and answers 201 without storing it;
 * - litejobs-*: litejobs' own `startServer`, a queue on the given file, no workers;
 * - bullmq: the floor's route awaiting BullMQ `queue.add(name, body)`.
 */
import { Queue as BullQueue } from 'bullmq';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { startServer } from '../../src/http/index.js';
import { createQueue } from '../../src/index.js';
import { connection, PREFIX } from '../peers/bullmq.js';

const [variant, target] = process.argv.slice(2) as [string, string | undefined];
const send = (m: unknown) => process.send!(m);
const HOST = '127.0.0.1';

/** The floor's app; `store` is awaited before the answer (BullMQ), or absent (the floor). */
async function bareApp(store?: (name: string, body: unknown) => Promise<string | undefined>): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false });
  let n = 0;
  app.post<{ Params: { name: string } }>('/v1/hooks/:name', async (request, reply) => {
    const id = store ? await store(request.params.name, request.body) : ++n;
    return reply.code(201).send({ id, created: true });
  });
  const url = await app.listen({ host: HOST, port: 0 });
  return { app, url };
}

async function open(): Promise<{ url: string; close(): Promise<void> }> {
  if (variant === 'floor') {
    const { app, url } = await bareApp();
    return { url, close: () => app.close() };
  }
  if (variant === 'bullmq') {
    const queue = new BullQueue(target!, { connection: connection(), prefix: PREFIX });
    queue.on('error', () => {});
    await queue.waitUntilReady();
    const { app, url } = await bareApp(async (name, body) => (await queue.add(name, body)).id);
    return {
      url,
      async close() {
        await app.close();
        await queue.close();
      },
    };
  }
  if (variant === 'litejobs-normal' || variant === 'litejobs-full') {
    const queue = createQueue({ path: target!, name: 'bench', logger: pino({ level: 'silent' }), durability: variant === 'litejobs-full' ? 'full' : 'normal' });
    // The hooks the load sends: only listed hooks exist.
    const server = await startServer({ queue, host: HOST, port: 0, hooks: { stripe: {}, warmup: {} } });
    return {
      url: server.url,
      async close() {
        await server.close();
        await queue.close();
      },
    };
  }
  throw new Error(`unknown variant "${variant}"`);
}

const server = await open();
process.on('message', (m: { type?: string }) => {
  if (m.type !== 'exit') return;
  server.close().then(
    () => process.exit(0),
    (err: Error) => {
      process.stderr.write(`http-server ${variant}: close failed: ${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
});
send({ type: 'ready', url: server.url });
