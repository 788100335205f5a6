/** Schedules (cron expressions and intervals): list them with their next run times, add or replace one by id, remove one. */
import type { FastifyInstance } from 'fastify';
import type { Queue } from '../../queue.js';
import type { ScheduleRepeat, ScheduleView } from '../../engine/core/schedules.js';
import { schemas } from '../schemas.js';
import { HttpError } from '../errors.js';

interface ScheduleBody {
  name: string;
  id?: string;
  cron?: string;
  every?: string | number;
  tz?: string;
  payload?: unknown;
  missed?: 'skip' | 'one' | 'all';
  limit?: number;
  startDate?: string | number;
  endDate?: string | number;
  immediately?: boolean;
}

export function scheduleRoutes(app: FastifyInstance, queue: Queue): void {
  app.get('/v1/schedules', async (): Promise<{ schedules: ScheduleView[] }> => ({ schedules: await queue.schedules() }));
  app.post<{ Body: ScheduleBody }>('/v1/schedules', { schema: schemas.schedule }, async (request, reply) => {
    const { name, cron, every, ...options } = request.body;
    // Both or neither: the engine refuses it with its own message.
    const repeat = every === undefined ? (cron ?? {}) : cron === undefined ? { every } : { cron, every };
    await queue.schedule(name, repeat as ScheduleRepeat, options);
    const id = options.id ?? name;
    const saved = (await queue.schedules()).find((s) => s.id === id);
    return reply.code(201).send(saved);
  });
  // `:name` is the schedule's id: its job name, unless it was saved under an id of its own.
  app.delete<{ Params: { name: string } }>('/v1/schedules/:name', { schema: schemas.byScheduleId }, async (request) => {
    if (!(await queue.unschedule(request.params.name))) throw new HttpError(404, 'LJ_ERR_NOT_FOUND', `no schedule with id "${request.params.name}"`);
    return { name: request.params.name, removed: true };
  });
}
