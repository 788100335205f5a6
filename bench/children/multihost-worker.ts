/**
 * One worker "host" of the multihost scenario, in a process of its own.
 * argv: litejobs-pg | graphile-batched <url (through the delay proxy)> <schema> <concurrency>.
 * Starts its workers on {go}; reports the jobs it ran ({ran, is}: the
 * payloads' `i`, batched every 10 ms) and, for a payload with a send time
 * `t`, its enqueue-to-start time ({lat, ms}); answers {cpu} with the CPU it
 * used since {go} ({cpu, ms}); stops and exits on {exit}.
 */
import type { Runner } from 'graphile-worker';
import type { Queue } from '../../src/index.js';
import { wallNow } from '../lib/cross-process.js';
import { startGraphile } from '../peers/graphile.js';
import { openLitejobs } from '../peers/litejobs.js';

const [system, url, schema, concurrencyText] = process.argv.slice(2) as [string, string, string, string];
const concurrency = Number(concurrencyText);
const send = (m: unknown) => process.send!(m);

let ran: number[] = [];
let cpuAtGo: NodeJS.CpuUsage | undefined;
const handler = (payload: { i?: number; t?: number }) => {
  if (payload.t !== undefined) send({ type: 'lat', ms: wallNow() - payload.t });
  else ran.push(payload.i ?? -1);
};
const report = setInterval(() => {
  if (ran.length === 0) return;
  send({ type: 'ran', is: ran });
  ran = [];
}, 10);

let queue: Queue | undefined;
let runner: Runner | undefined;
if (system === 'litejobs-pg') {
  queue = openLitejobs({ connection: url, schema }, { concurrency }, handler).queue;
  await queue.stats(); // connected before {ready}
}

process.on('message', (m: { type: string }) => {
  if (m.type === 'cpu') {
    const used = process.cpuUsage(cpuAtGo);
    send({ type: 'cpu', ms: (used.user + used.system) / 1000 });
  } else if (m.type === 'go') {
    cpuAtGo = process.cpuUsage();
    const started = queue
      ? queue.start()
      : startGraphile(url, schema, 'batched', concurrency, handler).then((r) => {
          runner = r;
        });
    void started.then(() => send({ type: 'started' }));
  } else if (m.type === 'exit') {
    void (async () => {
      await (queue ? queue.close() : runner?.stop());
      clearInterval(report);
      if (ran.length > 0) send({ type: 'ran', is: ran });
      process.exit(0);
    })();
  }
});
send({ type: 'ready' });
