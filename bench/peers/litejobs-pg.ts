/**
 * litejobs on the local PostgreSQL (`createQueue({ connection, schema })`),
 * through its public API only. Each round uses a schema of its own
 * (`ljbench_lj_*`), dropped afterwards.
 */
import type { Producer, ProducerPeer } from '../lib/producer.js';
import { uniqueName } from '../lib/tmp.js';
import { dropSchema } from './graphile.js';
import { enqueueInChunks, JOB, litejobsDrain, openLitejobs, type LitejobsSettings } from './litejobs.js';

export const LJ_PG = 'litejobs PostgreSQL';

export interface PgTarget {
  connection: string;
  schema: string;
}

export function freshPgTarget(url: string): PgTarget {
  return { connection: url, schema: uniqueName('ljbench_lj') };
}

export function litejobsPgProducer(url: string, count?: number): ProducerPeer {
  return {
    label: LJ_PG,
    system: 'litejobs',
    requires: 'postgres',
    ...(count !== undefined ? { count } : {}),
    async open() {
      const target = freshPgTarget(url);
      const { queue } = openLitejobs(target, {});
      return {
        one: (p) => queue.enqueue(JOB, p),
        many: (ps) => queue.enqueueMany(ps.map((payload) => ({ name: JOB, payload }))),
        async close() {
          try {
            await queue.close();
          } finally {
            await dropSchema(url, target.schema);
          }
        },
      } satisfies Producer;
    },
  };
}

/**
 * Drain `n` no-op jobs enqueued beforehand (enqueueMany of 1000, untimed, by
 * another queue on the same schema): timed from start() until the n-th
 * handler has run and stop() has committed every outcome. Returns the time
 * and a line for each job left pending or processing.
 */
export async function litejobsPgDrain(url: string, n: number, s: LitejobsSettings, timeoutMs: number): Promise<{ ms: number; notes: string[] }> {
  const target = freshPgTarget(url);
  const notes: string[] = [];
  try {
    const producer = openLitejobs(target, {});
    try {
      await enqueueInChunks(producer.queue, n);
    } finally {
      await producer.queue.close();
    }
    const out = await litejobsDrain(target, n, s, timeoutMs);
    if (out.note) notes.push(out.note);
    try {
      const stats = await out.queue.stats();
      const left = (stats.byState.pending ?? 0) + (stats.byState.processing ?? 0);
      if (left !== 0) notes.push(`${left} jobs still pending/processing after the drain (stats: ${JSON.stringify(stats.byState)})`);
    } finally {
      await out.queue.close();
    }
    return { ms: out.ms, notes };
  } finally {
    await dropSchema(url, target.schema);
  }
}
