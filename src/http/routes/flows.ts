/** `/v1/flows` and `/v1/batches`: a parent with its children, and items with one onComplete job, each in one transaction. */
import type { FastifyInstance } from 'fastify';
import type { FlowJob } from '../../engine/flow-api.js';
import type { Queue } from '../../queue.js';
import { schemas } from '../schemas.js';
import { enqueueOptions, type JobInput } from './jobs.js';

type FlowInput = Pick<JobInput, 'name' | 'payload' | 'delay' | 'runAt' | 'priority' | 'group'> & { onChildFailure?: 'fail' | 'continue'; children?: FlowInput[] };

/** The request's tree as enqueueFlow takes it (a stack, not recursion: the body limit bounds the depth, not the call stack). */
function toFlow(input: FlowInput): FlowJob {
  const convert = (node: FlowInput): FlowJob => {
    const job: FlowJob = { name: node.name, payload: node.payload ?? null, options: enqueueOptions(node) };
    if (node.onChildFailure !== undefined) job.onChildFailure = node.onChildFailure;
    return job;
  };
  const root = convert(input);
  const stack: Array<[FlowInput, FlowJob]> = [[input, root]];
  while (stack.length > 0) {
    const [node, job] = stack.pop()!;
    if (!node.children) continue;
    const children = node.children.map(convert);
    job.children = children;
    node.children.forEach((child, i) => {
      stack.push([child, children[i]!]);
    });
  }
  return root;
}

export function flowRoutes(app: FastifyInstance, queue: Queue, bodyLimit: number): void {
  app.post<{ Body: FlowInput }>('/v1/flows', { schema: schemas.flow, bodyLimit }, async (request, reply) => {
    const flow = await queue.enqueueFlow(toFlow(request.body) as never);
    return reply.code(201).send(flow);
  });

  app.post<{ Body: { jobs: FlowInput[]; onComplete: FlowInput } }>('/v1/batches', { schema: schemas.flowBatch, bodyLimit }, async (request, reply) => {
    const { jobs, onComplete } = request.body;
    const items = jobs.map((job) => ({ name: job.name, payload: job.payload ?? null, options: enqueueOptions(job) }));
    const batch = await queue.enqueueBatch(items, { onComplete: { name: onComplete.name, payload: onComplete.payload ?? null, options: enqueueOptions(onComplete) } });
    return reply.code(201).send(batch);
  });
}
