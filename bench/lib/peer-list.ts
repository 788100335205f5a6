/** The peers of a scenario that can run here, and a line for each that cannot. */
import { bullmqProducer } from '../peers/bullmq.js';
import { graphileProducer } from '../peers/graphile.js';
import { litejobsProducer } from '../peers/litejobs.js';
import { LJ_PG, litejobsPgProducer } from '../peers/litejobs-pg.js';
import { pgbossProducer } from '../peers/pgboss.js';
import { plainjobProducer } from '../peers/plainjob.js';
import { rawProducer } from '../peers/raw-sqlite.js';
import type { ProducerPeer } from './producer.js';
import type { Contender } from './rounds.js';
import type { RowResult, RunContext } from './types.js';

export function skipLine(ctx: RunContext, label: string, needs: 'redis' | 'postgres'): string | undefined {
  const s = needs === 'redis' ? ctx.servers.redis : ctx.servers.postgres;
  if (s.ok) return undefined;
  return `${label} skipped: ${needs === 'redis' ? 'Redis' : 'PostgreSQL'} at ${s.url} is not reachable (${s.reason ?? 'no answer'})`;
}

/** The systems that run on PostgreSQL: litejobs' PostgreSQL store is compared with these. */
const ON_POSTGRES = new Set(['pg-boss', 'graphile-worker']);

/**
 * litejobs first, then the peers whose servers answer; litejobs on
 * PostgreSQL next to the PostgreSQL peers. `pgCount`: jobs per round for
 * every system on PostgreSQL, when the scenario's count would take too long.
 */
export function producerPeers(ctx: RunContext, pgCount?: number): { peers: ProducerPeer[]; skipped: string[] } {
  const url = ctx.servers.postgres.url;
  const all = [
    litejobsProducer,
    rawProducer,
    plainjobProducer,
    bullmqProducer,
    litejobsPgProducer(url, pgCount),
    graphileProducer(url, pgCount),
    pgbossProducer(url, pgCount),
  ];
  const peers: ProducerPeer[] = [];
  const skipped: string[] = [];
  for (const p of all) {
    const line = p.requires ? skipLine(ctx, p.label, p.requires) : undefined;
    if (line) {
      skipped.push(line);
      ctx.progress(line);
    } else peers.push(p);
  }
  return { peers, skipped };
}

/**
 * One contender per producer peer: open a producer, time `body` (which returns
 * how many jobs it enqueued), close. `count` is the peer's own job count, if set.
 */
export function producerContenders(
  ctx: RunContext,
  peers: readonly ProducerPeer[],
  body: (producer: Awaited<ReturnType<ProducerPeer['open']>>, count: number | undefined) => Promise<number>,
): Contender[] {
  return peers.map((p) => ({
    label: p.label,
    system: p.system,
    async run() {
      const producer = await p.open(ctx.tmpDir);
      try {
        const t0 = performance.now();
        const jobs = await body(producer, p.count);
        return { rate: jobs / ((performance.now() - t0) / 1000) };
      } finally {
        await producer.close();
      }
    },
  }));
}

/** Pairs litejobs with every other contender, and litejobs on PostgreSQL with the PostgreSQL peers, for the ratio table. */
export function versusLitejobs(rows: readonly RowResult[]): Array<[string, string]> {
  const pairs = rows.filter((r) => r.system !== 'litejobs').map((r): [string, string] => ['litejobs', r.label]);
  if (rows.some((r) => r.label === LJ_PG)) {
    for (const r of rows) if (ON_POSTGRES.has(r.system)) pairs.push([LJ_PG, r.label]);
  }
  return pairs;
}
