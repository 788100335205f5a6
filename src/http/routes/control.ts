/** Pausing names and statistics. */
import type { FastifyInstance } from 'fastify';
import type { Queue } from '../../queue.js';
import { schemas } from '../schemas.js';

export function controlRoutes(app: FastifyInstance, queue: Queue): void {
  app.post<{ Params: { name: string } }>('/v1/names/:name/pause', { schema: schemas.byName }, async (request) => {
    await queue.pause(request.params.name);
    return { name: request.params.name, paused: true };
  });
  app.post<{ Params: { name: string } }>('/v1/names/:name/resume', { schema: schemas.byName }, async (request) => {
    await queue.resume(request.params.name);
    return { name: request.params.name, paused: false };
  });
  app.get('/v1/stats', async () => queue.stats());
}
