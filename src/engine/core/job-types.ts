/**
 * The types a typed queue derives from its jobs: for each job name, the
 * payload `enqueue` takes and the result `getJob` gives back.
 */
import type { Job } from './job-view.js';
import type { AnyJob, JobDeclaration, JobDefinition } from './job-definition.js';

/** Payload and result of one job. */
export interface JobTypes<P = unknown, R = unknown> {
  payload: P;
  result: R;
}

/** Job name → its types. */
export type JobTypeMap = Record<string, JobTypes>;

/** The map of a queue that was given no jobs (or jobs typed loosely): any name, any payload. */
export type UntypedJobs = Record<string, JobTypes<unknown, unknown>>;

// Declarations first: a declaration also fits the shape of a definition (every field but the name is optional there).
// A definition's payload here is what enqueue takes: its schema's input type (the handler's type without a schema).
type TypesOf<J> =
  J extends JobDeclaration<infer P, infer R, string> ? JobTypes<P, R> : J extends JobDefinition<infer _P, infer R, string, infer I> ? JobTypes<I, R> : never;

/** The map of a list of jobs: `[defineJob({ name: 'email', handler: (p: Mail) => … })]` → `{ email: { payload: Mail; result: … } }`. */
export type JobMapOf<Jobs extends readonly AnyJob[]> = [Jobs[number]] extends [never]
  ? UntypedJobs // no jobs: a producer that enqueues anything
  : string extends Jobs[number]['name']
    ? UntypedJobs // a name typed as `string` says nothing about which names exist
    : { [J in Jobs[number] as J['name']]: TypesOf<J> };

/** Any of the queue's results: what `result(id)` resolves with when only the id is known. */
export type ResultOf<M extends JobTypeMap> = M[keyof M & string]['result'];

/** A job as `getJob` returns it: one member per name, so checking `job.name` narrows payload and result. */
export type JobOf<M extends JobTypeMap> = { [N in keyof M & string]: Job<M[N]['payload'], M[N]['result']> & { name: N } }[keyof M & string];

/** One item of `enqueueMany`: its name picks its payload's type. */
export type EnqueueItem<M extends JobTypeMap, O> = { [N in keyof M & string]: { name: N; payload: M[N]['payload']; options?: O } }[keyof M & string];

/** One job of `enqueueFlow`: its name picks its payload's type; its children are flow jobs too. */
export type FlowJobOf<M extends JobTypeMap, O> = {
  [N in keyof M & string]: {
    name: N;
    payload: M[N]['payload'];
    options?: O;
    /** When a child ends `dead` or `cancelled`: `'fail'` (default) fails this job at once, `'continue'` runs it once every child has finished. */
    onChildFailure?: 'fail' | 'continue';
    children?: ReadonlyArray<FlowJobOf<M, O>>;
  };
}[keyof M & string];
