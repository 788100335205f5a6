/** Concurrency groups and limits: what is limited and how busy each group is; a group's own concurrency; a job name's limits changed while the queue runs. */
import type { FastifyInstance } from 'fastify';
import type { LimitsView, NameLimitView } from '../../engine/actions/limits-view.js';
import type { LimitChanges } from '../../engine/core/live-limits.js';
import type { Queue } from '../../queue.js';
import { schemas } from '../schemas.js';

export function limitRoutes(app: FastifyInstance, queue: Queue): void {
  app.get('/v1/limits', async (): Promise<LimitsView> => queue.limits());
  app.put<{ Params: { group: string }; Body: { concurrency: number | null } }>(
    '/v1/groups/:group/concurrency',
    { schema: schemas.groupConcurrency },
    async (request) => {
      const { group } = request.params;
      await queue.setGroupConcurrency(group, request.body.concurrency);
      return { group, concurrency: request.body.concurrency };
    },
  );
  app.put<{ Params: { name: string }; Body: LimitChanges }>(
    '/v1/names/:name/limits',
    { schema: schemas.nameLimits },
    async (request): Promise<NameLimitView> => queue.setLimits(request.params.name, request.body),
  );
  app.delete<{ Params: { name: string } }>('/v1/names/:name/limits', { schema: schemas.nameLimitsReset }, async (request): Promise<NameLimitView> => queue.resetLimits(request.params.name));
}
