/** `/v1/flows` and `/v1/batches`: a parent with its children, and items with one onComplete job, each in one transaction. */
import type { FastifyInstance } from 'fastify';
import { checkFlowDepth, type FlowJob } from '../../engine/enqueue/flow-api.js';
import type { LargeBodyGate } from '../large-body-gate.js';
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

/** A flow's jobs cost more per byte than a batch's: flows over this many bytes go through the gate one at a time. */
const FLOW_GATE_BYTES = 64 * 1024;

export function flowRoutes(app: FastifyInstance, queue: Queue, o: { bodyLimit: number; gate: LargeBodyGate }): void {
  const { bodyLimit } = o;
  const preParsing = o.gate.over(FLOW_GATE_BYTES);
  // The depth is checked before the schema: its validator recurses level by level, and thousands of levels would overflow the stack (a 500, not a 400).
  const preValidation = async (request: { body: unknown }) => checkFlowDepth(request.body);
  app.post<{ Body: FlowInput }>('/v1/flows', { schema: schemas.flow, bodyLimit, preParsing, preValidation }, async (request, reply) => {
    const flow = await queue.enqueueFlow(toFlow(request.body) as never);
    return reply.code(201).send(flow);
  });

  app.post<{ Body: { jobs: FlowInput[]; onComplete: FlowInput } }>('/v1/batches', { schema: schemas.flowBatch, bodyLimit, preParsing }, async (request, reply) => {
    const { jobs, onComplete } = request.body;
    const items = jobs.map((job) => ({ name: job.name, payload: job.payload ?? null, options: enqueueOptions(job) }));
    const batch = await queue.enqueueBatch(items, { onComplete: { name: onComplete.name, payload: onComplete.payload ?? null, options: enqueueOptions(onComplete) } });
    return reply.code(201).send(batch);
  });
}
