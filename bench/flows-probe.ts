import { createQueue, defineJob } from '../src/index.js';
import { pino } from 'pino';
const N = Number(process.argv[2] ?? 5000);
const pg = process.argv[3] === 'pg';
async function run(mode: 'batch' | 'many') {
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  let n = 0;
  const item = defineJob({ name: 'item', handler: () => { if (mode === 'many' && ++n === N) done(); } });
  const cb = defineJob({ name: 'cb', handler: () => done() });
  const target = pg ? { connection: 'postgres://postgres@127.0.0.1:5432/test', schema: `ljprobe_${Date.now()}` } : { path: `/tmp/fb/${mode}-${Date.now()}.db` };
  const q = createQueue({ ...target, jobs: [item, cb], concurrency: 16, logger: pino({ level: 'silent' }) });
  const items = Array.from({ length: N }, (_, i) => ({ name: 'item' as const, payload: { i } }));
  if (mode === 'batch') await q.enqueueBatch(items, { onComplete: { name: 'cb', payload: {} } });
  else for (let i = 0; i < N; i += 1000) await q.enqueueMany(items.slice(i, i + 1000));
  const t0 = performance.now();
  await q.start();
  await finished;
  const ms = performance.now() - t0;
  await q.close();
  console.log(`${pg ? 'pg' : 'sqlite'} ${mode} ${N}: ${ms.toFixed(0)} ms, ${Math.round(N / (ms / 1000))} jobs/s`);
}
await run('many');
await run('batch');
await run('many');
await run('batch');
