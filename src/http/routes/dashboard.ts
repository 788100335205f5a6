/**
 * The dashboard's own reads and bulk actions: its configuration (the
 * statecharts, laid out) and the jobs of one state, page by page. Live
 * counts, series, workers and the event stream are in dashboard-live.ts; the
 * bulk actions sit with the other job routes (jobs.ts).
 */
import type { FastifyInstance } from 'fastify';
import { dashboardGraphs, type DashboardGraph } from '../../dashboard/graphs.js';
import type { Queue } from '../../queue.js';
import { internalsOf } from '../../queue-internals.js';
import { WHOLE_QUEUE } from '../../store/paused.js';
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
}

export function dashboardRoutes(app: FastifyInstance, queue: Queue, options: DashboardRouteOptions): void {
  const { store, definitions } = internalsOf(queue);
  let graphs: Promise<DashboardGraph[]> | undefined;

  app.get('/v1/dashboard', async () => {
    graphs ??= dashboardGraphs(definitions);
    const [charts, stats, paused] = await Promise.all([graphs, queue.stats(), store.paused()]);
    const names = new Set([...definitions.keys(), ...Object.keys(stats.byName)]);
    return {
      readOnly: options.readOnly,
      graphs: await charts,
      names: [...names].sort(),
      paused: { all: paused.includes(WHOLE_QUEUE), names: paused.filter((n) => n !== WHOLE_QUEUE).sort() },
    };
  });

  app.get<{ Querystring: { state: string; name?: string; where?: string; limit?: number; cursor?: string } }>(
    '/v1/dashboard/jobs',
    { schema: schemas.jobs },
    async (request) => {
      const { state, name: jobName, where: search, limit, cursor } = request.query;
      return store.browse({ state, name: jobName, where: search ? parseWhere(search) : [], limit: limit ?? 100, cursor });
    },
  );
}
