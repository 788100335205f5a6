/**
 * The drain scenario's PostgreSQL contenders, all on the same local server:
 * litejobs' PostgreSQL store, graphile-worker 0.18 and pg-boss 10, each at
 * its defaults and at its fastest documented setting; and the targets that
 * compare them.
 */
import { ratioCheck, type Contender } from '../lib/rounds.js';
import type { Check, RowResult } from '../lib/types.js';
import { graphileDrain } from '../peers/graphile.js';
import type { LitejobsSettings } from '../peers/litejobs.js';
import { litejobsPgDrain } from '../peers/litejobs-pg.js';
import { pgbossDrain } from '../peers/pgboss.js';

export const LJ_PG_DEFAULT = 'litejobs PostgreSQL defaults';
export const LJ_PG_FAST = 'litejobs PostgreSQL fastest';
export const GW_DEFAULT = 'graphile-worker defaults c16';
export const GW_BATCHED = 'graphile-worker batched c16';
export const BOSS_DEFAULT = 'pg-boss c16';
export const BOSS_FAST = 'pg-boss fastest';

/** The same number of jobs a graphile-worker local queue holds in its batched mode. */
const FAST_PREFETCH = 500;
const BOSS_FAST_BATCH = 500;
const LJ_FAST_SETTINGS: LitejobsSettings = { history: false, deleteOnComplete: true, prefetch: FAST_PREFETCH };

export interface PgDrain {
  contenders: Contender[];
  pairs: Array<[string, string]>;
  config: Record<string, string>;
  checks(rows: readonly RowResult[]): Check[];
  notes(quick: boolean): string[];
}

export function pgDrain(url: string, n: number, concurrency: number, timeoutMs: number, quick: boolean, notes: Set<string>): PgDrain {
  const rate = (ms: number) => ({ rate: n / (ms / 1000) });
  const litejobs = (label: string, s: LitejobsSettings): Contender => ({
    label,
    system: 'litejobs',
    async run() {
      const out = await litejobsPgDrain(url, n, { concurrency, ...s }, timeoutMs);
      for (const line of out.notes) notes.add(`${label}: ${line}`);
      return rate(out.ms);
    },
  });
  // The slow settings take minutes for a full-size backlog: one round each (no warm-up either).
  const slow = quick ? {} : { maxRounds: 1 };
  const slowTimeout = quick ? timeoutMs : 600_000;
  return {
    contenders: [
      litejobs(LJ_PG_DEFAULT, {}),
      litejobs(LJ_PG_FAST, LJ_FAST_SETTINGS),
      { label: GW_DEFAULT, system: 'graphile-worker', ...slow, run: async () => rate(await graphileDrain(url, n, concurrency, 'defaults', slowTimeout)) },
      { label: GW_BATCHED, system: 'graphile-worker', run: async () => rate(await graphileDrain(url, n, concurrency, 'batched', timeoutMs)) },
      { label: BOSS_DEFAULT, system: 'pg-boss', ...slow, run: async () => rate(await pgbossDrain(url, n, { batchSize: concurrency }, slowTimeout)) },
      { label: BOSS_FAST, system: 'pg-boss', run: async () => rate(await pgbossDrain(url, n, { batchSize: BOSS_FAST_BATCH, priority: false }, slowTimeout)) },
    ],
    pairs: [
      [LJ_PG_DEFAULT, GW_DEFAULT],
      [LJ_PG_DEFAULT, GW_BATCHED],
      [LJ_PG_DEFAULT, BOSS_DEFAULT],
      [LJ_PG_FAST, GW_BATCHED],
      [LJ_PG_FAST, BOSS_FAST],
    ],
    config: {
      [LJ_PG_DEFAULT]: `createQueue({ connection, schema }) defaults, concurrency ${concurrency} (history on, completed jobs kept, prefetch 4 × concurrency); a fresh schema per round`,
      [LJ_PG_FAST]: `history: false, retention: { completed: 0 }, prefetch: ${FAST_PREFETCH} (as many jobs claimed at once as graphile-worker's batched local queue holds)`,
      [GW_DEFAULT]: `run({ concurrency: ${concurrency} }) with its defaults: each worker fetches and completes its own job (a completed job is deleted); timed until the job table is empty`,
      [GW_BATCHED]: `preset.worker: localQueue { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 (its documented batching), concurrency ${concurrency}`,
      [BOSS_DEFAULT]: `one loop of fetch(batchSize ${concurrency}) → ${concurrency} handlers at once → complete(ids), default queue options: work({ batchSize: ${concurrency} }) without its ≥ 0.5 s polling sleep`,
      [BOSS_FAST]: `the same loop with fetch({ batchSize: ${BOSS_FAST_BATCH}, priority: false }) (no priority sort)`,
    },
    checks(rows) {
      return [
        ratioCheck(rows, 'rate', LJ_PG_FAST, GW_BATCHED, 1.2, 'PostgreSQL drain fastest ≥ 1.2× graphile-worker batched'),
        ratioCheck(rows, 'rate', LJ_PG_DEFAULT, GW_BATCHED, 1.2, 'PostgreSQL drain defaults ≥ 1.2× graphile-worker batched'),
        ratioCheck(rows, 'rate', LJ_PG_DEFAULT, BOSS_DEFAULT, 10, 'PostgreSQL drain defaults ≥ 10× pg-boss defaults (c16)'),
      ];
    },
    notes: (q) =>
      q
        ? []
        : [
            `${GW_DEFAULT} and ${BOSS_DEFAULT} run one round only (minutes per full-size drain). pg-boss's fetch sorts every queued row, so its rate falls as the backlog grows.`,
          ],
  };
}
