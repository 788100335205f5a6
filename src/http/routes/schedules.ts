/** Cron schedules: list them with their next run times, add or replace one, remove one. */
import type { FastifyInstance } from 'fastify';
import type { Queue } from '../../queue.js';
import type { ScheduleView } from '../../engine/core/schedules.js';
import { schemas } from '../schemas.js';
import { HttpError } from '../errors.js';

interface ScheduleBody {
  name: string;
  cron: string;
  tz?: string;
  payload?: unknown;
  missed?: 'skip' | 'one' | 'all';
}

export function scheduleRoutes(app: FastifyInstance, queue: Queue): void {
  app.get('/v1/schedules', async (): Promise<{ schedules: ScheduleView[] }> => ({ schedules: await queue.schedules() }));
  app.post<{ Body: ScheduleBody }>('/v1/schedules', { schema: schemas.schedule }, async (request, reply) => {
    const { name, cron, ...options } = request.body;
    await queue.schedule(name, cron, options);
    const saved = (await queue.schedules()).find((s) => s.name === name);
    return reply.code(201).send(saved);
  });
  app.delete<{ Params: { name: string } }>('/v1/schedules/:name', { schema: schemas.byName }, async (request) => {
    if (!(await queue.unschedule(request.params.name))) throw new HttpError(404, 'LJ_ERR_NOT_FOUND', `no schedule named "${request.params.name}"`);
    return { name: request.params.name, removed: true };
  });
}
