/** Concurrency groups and limits: what is limited and how busy each group is; a group's own concurrency. */
import type { FastifyInstance } from 'fastify';
import type { LimitsView } from '../../engine/actions/limits-view.js';
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
}
