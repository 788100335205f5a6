/**
 * The queue's flow methods: `enqueueFlow` (a parent that waits for its
 * children, which may have children of their own) and `enqueueBatch` (one
 * `onComplete` job that runs once every item has finished). Every row of a
 * flow commits in one transaction; the parents wait in the machine's
 * `waiting-children` state, holding no worker.
 */
import { ValidationError } from '../../errors.js';
import type { FlowInsertResult, NewFlowNode, OnChildFailure } from '../../store/store.js';
import type { Engine } from '../core/engine.js';
import type { EnqueueItemOptions } from '../core/options.js';
import { rejectUnknownOptions } from '../../lib/validate.js';
import { validatePayload, type PayloadSchema } from '../core/payload-schema.js';

/** One job of a flow: its name, payload and options, and the children it waits for. */
export interface FlowJob {
  name: string;
  payload: unknown;
  options?: EnqueueItemOptions;
  /** What this job does when a child ends `dead` or `cancelled`: fail at once (default), or run once all have finished. */
  onChildFailure?: OnChildFailure;
  children?: readonly FlowJob[];
}

/** The ids of a flow's jobs, in the shape of the flow. */
export interface FlowResult {
  id: number;
  /** The state the job was created in: `waiting-children` for a parent, the machine's initial state otherwise. */
  state: string;
  children: FlowResult[];
}

export interface BatchOptions {
  /** The job that runs once every item has finished (`ctx.childCounts()` gives the counts per final state). */
  onComplete: { name: string; payload: unknown; options?: EnqueueItemOptions };
}

export interface BatchResult {
  /** The onComplete job's id: it waits in `waiting-children` until every item has finished. */
  id: number;
  /** The items' ids, in the order given. */
  ids: number[];
}

const FLOW_KEYS = ['name', 'payload', 'options', 'onChildFailure', 'children'] as const;
/** Jobs in one flow at most: it commits in one transaction. */
export const MAX_FLOW_JOBS = 100_000;
/**
 * Levels of a flow at most (the root is level 1). Far more than any real
 * dependency chain; a deeper one is refused before anything is written, so
 * that nothing downstream (the reply, a result walked by a caller) meets an
 * unbounded nesting.
 */
export const MAX_FLOW_DEPTH = 64;

/** Refuses a flow deeper than MAX_FLOW_DEPTH, walking it without recursion (any value: the HTTP API checks a body before its schema does). */
export function checkFlowDepth(flow: unknown): void {
  const stack: Array<{ job: unknown; depth: number }> = [{ job: flow, depth: 1 }];
  while (stack.length > 0) {
    const { job, depth } = stack.pop()!;
    const children = (job as { children?: unknown } | null)?.children;
    if (!Array.isArray(children) || children.length === 0) continue;
    if (depth >= MAX_FLOW_DEPTH) throw new ValidationError(`enqueueFlow: a flow is ${MAX_FLOW_DEPTH} levels deep at most`);
    for (const child of children) stack.push({ job: child, depth: depth + 1 });
  }
}

export interface FlowApi {
  enqueueFlow(flow: FlowJob): Promise<FlowResult>;
  enqueueBatch(items: readonly FlowJob[], options: BatchOptions): Promise<BatchResult>;
}

export function createFlowApi(engine: Engine, schemas: ReadonlyMap<string, PayloadSchema>): FlowApi {
  /** The flow with each payload its job's schema validates replaced by the validator's output (nothing is written before). */
  const validated = async (flow: FlowJob): Promise<FlowJob> => {
    if (schemas.size === 0) return flow;
    const copy = async (job: FlowJob): Promise<FlowJob> => {
      if (typeof job !== 'object' || job === null) return job; // refused by toNodes
      const schema = typeof job.name === 'string' ? schemas.get(job.name) : undefined;
      const payload = schema === undefined ? job.payload : await validatePayload(schema, job.payload, { job: job.name });
      const children = Array.isArray(job.children) ? await Promise.all(job.children.map(copy)) : job.children;
      return { ...job, payload, ...(children === undefined ? {} : { children }) };
    };
    return copy(flow);
  };

  /** Checks every job of the tree (depth first, without recursion) before anything is written. */
  const toNodes = (flow: FlowJob, now: number): NewFlowNode => {
    let count = 0;
    const build = (job: FlowJob, where: string): { node: NewFlowNode; children: readonly FlowJob[] } => {
      if (typeof job !== 'object' || job === null) throw new ValidationError(`${where}: a flow job is an object { name, payload, options?, onChildFailure?, children? }`);
      rejectUnknownOptions(where, job, FLOW_KEYS);
      if (++count > MAX_FLOW_JOBS) throw new ValidationError(`a flow holds ${MAX_FLOW_JOBS} jobs at most`);
      const policy = job.onChildFailure ?? 'fail';
      if (policy !== 'fail' && policy !== 'continue') throw new ValidationError(`${where}: onChildFailure must be "fail" or "continue"`);
      const children = job.children ?? [];
      if (!Array.isArray(children)) throw new ValidationError(`${where}: children must be an array`);
      const newJob = engine.newJob({ name: job.name, payload: job.payload, options: job.options }, now);
      // A key could hand back a job of another flow, whose parent is not this one.
      if (newJob.key !== null || newJob.unique) throw new ValidationError(`${where}: a flow's jobs take no key, unique, debounce or throttle`);
      return { node: { job: newJob, onChildFailure: policy, children: [] }, children };
    };
    const root = build(flow, 'enqueueFlow');
    const stack = [{ ...root, where: 'enqueueFlow' }];
    while (stack.length > 0) {
      const { node, children, where } = stack.pop()!;
      const built = children.map((child, i) => ({ ...build(child, `${where}.children[${i}]`), where: `${where}.children[${i}]` }));
      (node.children as NewFlowNode[]).push(...built.map((b) => b.node));
      stack.push(...built);
    }
    return root.node;
  };

  const enqueueFlow = async (flow: FlowJob): Promise<FlowResult> => {
    checkFlowDepth(flow); // first: validating the payloads walks the tree level by level
    return engine.enqueueFlow(toNodes(await validated(flow), engine.clock.now()));
  };

  return {
    enqueueFlow,
    async enqueueBatch(items, options) {
      if (!Array.isArray(items)) throw new ValidationError('enqueueBatch takes an array of { name, payload, options }');
      if (typeof options !== 'object' || options === null) throw new ValidationError('enqueueBatch: options.onComplete is required');
      rejectUnknownOptions('enqueueBatch options', options, ['onComplete']);
      const { onComplete } = options;
      if (typeof onComplete !== 'object' || onComplete === null) throw new ValidationError('enqueueBatch: options.onComplete must be { name, payload, options? }');
      rejectUnknownOptions('enqueueBatch onComplete', onComplete, ['name', 'payload', 'options']);
      for (const item of items) {
        if (typeof item === 'object' && item !== null) rejectUnknownOptions('enqueueBatch item', item, ['name', 'payload', 'options']);
      }
      // The callback waits for every item, whatever became of it.
      const result: FlowInsertResult = await enqueueFlow({ ...onComplete, onChildFailure: 'continue', children: items });
      return { id: result.id, ids: result.children.map((c) => c.id) };
    },
  };
}
