/**
 * One round of the multihost scenario: three worker processes ("hosts")
 * reach PostgreSQL through the delaying proxy (children/delay-proxy.ts), a
 * backlog enqueued beforehand straight to the server; then enqueue-to-start
 * latency from a producer in a fourth process, through the proxy too.
 */
import type { ChildProcess } from 'node:child_process';
import { JOB, enqueueInChunks, openLitejobs } from '../peers/litejobs.js';
import { dropSchema, openGraphile } from '../peers/graphile.js';
import { freshPgTarget } from '../peers/litejobs-pg.js';
import { exited, forkChild, nextMessage } from './child.js';
import { serverCpuMs } from './server-cpu.js';
import { percentile, sleep, withTimeout } from './stats.js';

export type HostSystem = 'litejobs-pg' | 'graphile-batched';

export const HOSTS = 3;

const is = <T extends string>(type: T) => (m: unknown): m is { type: T; port?: number; ms?: number } => (m as { type?: string }).type === type;

/** The CPU (ms) a child has used, as it reports it on {cpu} (since its {go} for a host, since its start for the proxy). */
async function cpuOf(child: ChildProcess): Promise<number> {
  const answer = nextMessage(child, is('cpu'), 10_000);
  child.send({ type: 'cpu' });
  return (await answer).ms ?? Number.NaN;
}

export interface Proxy {
  url: string;
  /** The CPU the proxy process has used so far, ms. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

/** The proxy's port, its CPU, and how to stop it. */
export async function startProxy(url: string, rttMs: number): Promise<Proxy> {
  const server = new URL(url);
  const child = forkChild('delay-proxy.ts', [server.hostname, server.port || '5432', String(rttMs)]);
  const { port } = await nextMessage(child, is('ready'), 30_000);
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return {
    url: proxied.toString(),
    cpuMs: () => cpuOf(child),
    async stop() {
      if (child.connected) child.send({ type: 'exit' });
      await exited(child, 5000);
    },
  };
}

export interface HostRound {
  rate: number;
  p50: number;
  p99: number;
  /**
   * CPU per job of the drain, µs: the three hosts together, the PostgreSQL
   * server (null where it cannot be read), and the proxy. Two cores are
   * 2,000,000 µs a second, shared by all three: their sum per job bounds
   * the rate.
   */
  cpuUs: { hosts: number; server: number | null; proxy: number };
  /** Jobs run twice or never (each must run once). */
  problems: string[];
}

/** A fresh schema holding `n` no-op jobs (payload { i }), enqueued straight to the server. */
async function backlog(system: HostSystem, url: string, n: number): Promise<{ schema: string; drop(): Promise<void> }> {
  if (system === 'litejobs-pg') {
    const target = freshPgTarget(url);
    const { queue } = openLitejobs(target, {});
    try {
      await enqueueInChunks(queue, n);
    } finally {
      await queue.close();
    }
    return { schema: target.schema, drop: () => dropSchema(url, target.schema) };
  }
  const g = await openGraphile(url);
  try {
    for (let i = 0; i < n; i += 1000) await g.utils.addJobs(Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({ identifier: JOB, payload: { i: i + k } })));
  } catch (err) {
    await g.close();
    throw err;
  }
  return { schema: g.schema, drop: () => g.close() };
}

export async function hostRound(system: HostSystem, url: string, proxy: Proxy, o: { n: number; samples: number; concurrency: number; timeoutMs: number }): Promise<HostRound> {
  const proxyUrl = proxy.url;
  const { schema, drop } = await backlog(system, url, o.n);
  const hosts: ChildProcess[] = [];
  const seen = new Uint8Array(o.n);
  const problems: string[] = [];
  let ran = 0;
  let allRan!: () => void;
  const drained = new Promise<void>((resolve) => (allRan = resolve));
  const latencies: number[] = [];
  let sampled: ((ms: number) => void) | undefined;
  try {
    for (let h = 0; h < HOSTS; h++) {
      const child = forkChild('multihost-worker.ts', [system, proxyUrl, schema, String(o.concurrency)]);
      child.on('message', (m: { type: string; is?: number[]; ms?: number }) => {
        if (m.type === 'lat') sampled?.(m.ms!);
        if (m.type !== 'ran') return;
        for (const i of m.is!) {
          if (i < 0 || i >= o.n) continue;
          if (seen[i]!++ > 0) problems.push(`job ${i} ran twice`);
          else if (++ran === o.n) allRan();
        }
      });
      hosts.push(child);
    }
    await Promise.all(hosts.map((c) => nextMessage(c, is('ready'), 60_000)));
    const [server0, proxy0] = [serverCpuMs(url), await proxy.cpuMs()];
    const t0 = performance.now();
    for (const c of hosts) c.send({ type: 'go' });
    await withTimeout(drained, o.timeoutMs, `${system}: ${o.n} jobs through ${HOSTS} hosts`);
    const ms = performance.now() - t0;
    const [server1, proxy1, hostsMs] = [serverCpuMs(url), await proxy.cpuMs(), await Promise.all(hosts.map(cpuOf))];
    const perJob = (cpuMs: number) => (cpuMs * 1000) / o.n;
    const cpuUs = {
      hosts: perJob(hostsMs.reduce((a, b) => a + b, 0)),
      server: server0 === null || server1 === null ? null : perJob(server1 - server0),
      proxy: perJob(proxy1 - proxy0),
    };

    // Latency: the backlog is gone, the hosts wait; one job at a time from a fourth process.
    const producer = forkChild('latency-producer.ts', [system === 'litejobs-pg' ? 'litejobs-pg' : 'graphile', proxyUrl, schema]);
    try {
      await nextMessage(producer, is('ready'), 30_000);
      await sleep(200); // every host back to waiting
      for (let s = 0; s < o.samples; s++) {
        const at = new Promise<number>((resolve) => (sampled = resolve));
        producer.send({ type: 'go', i: o.n + s });
        latencies.push(await withTimeout(at, 10_000, `${system} multihost latency sample`));
        await sleep(5);
      }
    } finally {
      if (producer.connected) producer.send({ type: 'exit' });
      await exited(producer, 10_000);
    }
    return { rate: o.n / (ms / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuUs, problems };
  } finally {
    for (const c of hosts) if (c.connected) c.send({ type: 'exit' });
    await Promise.all(hosts.map((c) => exited(c, 15_000)));
    const missing = seen.reduce((k, v) => k + (v === 0 ? 1 : 0), 0);
    if (missing > 0 && ran < o.n) problems.push(`${missing} jobs never ran`);
    await drop();
  }
}

/** `SELECT 1` round trips through `url`, median ms (the proxy's added delay plus the local one). */
export async function roundTripMs(url: string): Promise<number> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: url });
  await client.connect();
  try {
    const out: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      await client.query('SELECT 1');
      out.push(performance.now() - t0);
    }
    return percentile(out, 50);
  } finally {
    await client.end();
  }
}
