/**
 * The dashboard's own reads and bulk actions: its configuration (the
 * statecharts, laid out) and the jobs of one state, page by page. Live
 * counts, series, workers and the event stream are in dashboard-live.ts; the
 * bulk actions sit with the other job routes (jobs.ts).
 */
import { OTHER_NAMES } from '../../lib/name-bound.js';
import type { FastifyInstance } from 'fastify';
import { dashboardGraphs, type DashboardGraph } from '../../live/graphs.js';
import type { DashboardLive } from '../../live/live.js';
import type { Queue } from '../../queue.js';
import { internalsOf } from '../../queue-internals.js';
import { parseWhere } from '../../store/where.js';
import { NAME_PATTERN } from '../schemas.js';


const name = { type: 'string', pattern: NAME_PATTERN } as const;
const where = { type: 'string', maxLength: 1000 } as const;

const schemas = {
  jobs: {
    querystring: {
      type: 'object',
      additionalProperties: false,
      required: ['state'],
      properties: {
        state: { type: 'string', minLength: 1, maxLength: 200 },
        name,
        where,
        limit: { type: 'integer', minimum: 1, maximum: 500 },
        cursor: { type: 'string', minLength: 1, maxLength: 1000 },
      },
    },
  },
} as const;

export interface DashboardRouteOptions {
  readOnly: boolean;
  /** The live counts: the job names in the store come from them, not from a scan of every row. */
  live: DashboardLive;
}

export function dashboardRoutes(app: FastifyInstance, queue: Queue, options: DashboardRouteOptions): void {
  const { store, definitions, logger } = internalsOf(queue);
  const { live } = options;
  let graphs: Promise<DashboardGraph[]> | undefined;

  app.get('/v1/dashboard', async () => {
    // Laid out once; an unexpected failure is not kept, the next request tries again.
    graphs ??= dashboardGraphs(definitions, logger).catch((err: unknown) => {
      graphs = undefined;
      throw err;
    });
    const [charts, counts] = await Promise.all([graphs, live.counts()]);
    // The names the counts list (bounded: lib/name-bound.ts), never the sum of the rest.
    const stored = Object.values(counts.names).flatMap((byName) => Object.keys(byName)).filter((name) => name !== OTHER_NAMES);
    const names = new Set([...definitions.keys(), ...stored]);
    return {
      readOnly: options.readOnly,
      graphs: await charts,
      names: [...names].sort(),
      paused: counts.paused,
    };
  });

  app.get<{ Querystring: { state: string; name?: string; where?: string; limit?: number; cursor?: string } }>(
    '/v1/dashboard/jobs',
    { schema: schemas.jobs },
    async (request) => {
      const { state, name: jobName, where: search, limit, cursor } = request.query;
      return store.browse({ state, name: jobName, where: search ? parseWhere(search) : [], limit: limit ?? 100, cursor, ...(options.readOnly ? { readOnly: true } : {}) });
    },
  );
}
