/**
 * multihost: workers on three hosts against one PostgreSQL, the way users
 * outgrow one machine. The hosts are three processes that reach the server
 * through a delaying TCP proxy of the bench's own (1 ms and 5 ms of added
 * round-trip time); litejobs at its defaults against graphile-worker's
 * batched mode, alternating round by round.
 */
import { skipLine } from '../lib/peer-list.js';
import { HOSTS, hostRound, roundTripMs, startProxy, type HostSystem } from '../lib/multihost.js';
import { alternate, ratioCheck, ratios, roundsFor, throughput, type Contender } from '../lib/rounds.js';
import { fmt } from '../lib/stats.js';
import type { Metric, Scenario } from '../lib/types.js';

const RTTS = [1, 5];
const C = 16;
const P50: Metric = { key: 'p50', label: 'p50', unit: 'ms', better: 'lower' };
const P99: Metric = { key: 'p99', label: 'p99', unit: 'ms', better: 'lower' };
const HOST_CPU: Metric = { key: 'hostCpu', label: 'hosts CPU/job', unit: 'µs', better: 'lower' };
const SERVER_CPU: Metric = { key: 'serverCpu', label: 'server CPU/job', unit: 'µs', better: 'lower' };
const PROXY_CPU: Metric = { key: 'proxyCpu', label: 'proxy CPU/job', unit: 'µs', better: 'lower' };
const lj = (rtt: number) => `litejobs PostgreSQL, ${HOSTS} hosts, ${rtt} ms RTT`;
const gw = (rtt: number) => `graphile-worker batched, ${HOSTS} hosts, ${rtt} ms RTT`;

export const multiHostScenario: Scenario = {
  name: 'multihost',
  title: `Three worker hosts against one PostgreSQL, through a proxy adding 1 ms and 5 ms of round-trip time`,
  async run(ctx) {
    const started = Date.now();
    const n = ctx.quick ? 2000 : 20_000;
    const samples = ctx.quick ? 30 : 200;
    const rounds = roundsFor(ctx, 2);
    const skipped: string[] = [];
    const notes = new Set<string>();
    const down = skipLine(ctx, 'the multihost scenario (litejobs PostgreSQL, graphile-worker)', 'postgres');
    if (down) skipped.push(down);
    const url = ctx.servers.postgres.url;
    const measured = new Map<number, number>();
    const contender = (label: string, system: HostSystem, rtt: number): Contender => ({
      label,
      system: system === 'litejobs-pg' ? 'litejobs' : 'graphile-worker',
      async run() {
        const proxy = await startProxy(url, rtt);
        try {
          if (!measured.has(rtt)) measured.set(rtt, await roundTripMs(proxy.url));
          const out = await hostRound(system, url, proxy, { n, samples, concurrency: C, timeoutMs: ctx.quick ? 60_000 : 300_000 });
          for (const p of out.problems.slice(0, 5)) notes.add(`${label}: ${p}`);
          const cpu = { hostCpu: out.cpuUs.hosts, proxyCpu: out.cpuUs.proxy, ...(out.cpuUs.server === null ? {} : { serverCpu: out.cpuUs.server }) };
          return { rate: out.rate, p50: out.p50, p99: out.p99, ...cpu };
        } finally {
          await proxy.stop();
        }
      },
    });
    const contenders = down ? [] : RTTS.flatMap((rtt) => [contender(lj(rtt), 'litejobs-pg', rtt), contender(gw(rtt), 'graphile-batched', rtt)]);
    const rows = await alternate(ctx, 'multihost', rounds, contenders);
    const pairs = RTTS.map((rtt): [string, string] => [lj(rtt), gw(rtt)]);
    return {
      name: 'multihost',
      title: this.title,
      description:
        `${n.toLocaleString('en-US')} no-op jobs enqueued first (untimed, straight to the server), then ${HOSTS} worker processes of concurrency ${C} start together, each through the proxy; ` +
        'the clock runs until every job has run once (each host reports the jobs it ran). Then a producer in a fourth process, also through the proxy, ' +
        `enqueues ${samples} jobs one at a time, 5 ms apart, with its send time in the payload: p50/p99 are the enqueue-to-start times, the table shows their median over the rounds. ` +
        'The CPU columns are the drain\'s CPU per job: the three hosts together, the PostgreSQL server (every postgres process, from /proc) and the proxy; ' +
        'all of them share the machine\'s two cores (2,000,000 µs of CPU a second), so their sum per job bounds the rate.',
      metrics: [throughput, P50, P99, HOST_CPU, SERVER_CPU, PROXY_CPU],
      config: {
        proxy:
          'bench/children/delay-proxy.ts, a process of its own: each chunk the server sends waits the RTT before it reaches the client (no netem on this kernel); ' +
          [...measured].map(([rtt, ms]) => `SELECT 1 through the ${rtt} ms proxy: ${fmt(ms)} ms`).join('; '),
        [lj(1)]: `createQueue({ connection, schema }) defaults, concurrency ${C}, in each host (history on, completed jobs kept, the adaptive prefetch)`,
        [gw(1)]: `run({ concurrency: ${C} }) with localQueue { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0, in each host`,
        hosts: `${HOSTS} child processes on this 2-core machine, beside the PostgreSQL server: the server's CPU is shared with them`,
      },
      rounds,
      rows,
      ratios: [...ratios(rows, 'rate', pairs), ...ratios(rows, 'p50', pairs)],
      checks: [
        ratioCheck(rows, 'rate', lj(1), gw(1), 1.2, 'multi-host drain at 1 ms RTT, defaults ≥ 1.2× graphile-worker batched'),
        ratioCheck(rows, 'rate', lj(5), gw(5), 1.2, 'multi-host drain at 5 ms RTT, defaults ≥ 1.2× graphile-worker batched'),
      ],
      notes: [...notes],
      skipped,
      durationMs: Date.now() - started,
    };
  },
};
