/**
 * What a PostgreSQL store refuses before it writes: a payload whose JSON holds
 * the escape `\u0000`. The text column would hold it, but PostgreSQL's jsonb
 * cannot, so the payload search (which reads payloads as jsonb) would fail on
 * that row for every search of its state. Refused at enqueue with a 400-class
 * ValidationError, as a payload the store cannot keep whole; SQLite keeps it.
 */
import { ValidationError } from '../../errors.js';
import type { NewFlowNode, NewJob } from '../store.js';

/** `\u0000` as an escape (an odd run of backslashes before it), not the text `\\u0000`. */
const NUL_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\u0000/;

export function checkStorable(jobs: readonly Pick<NewJob, 'name' | 'payload'>[]): void {
  for (const job of jobs) {
    if (job.payload.includes('\\u0000') && NUL_ESCAPE.test(job.payload)) {
      throw new ValidationError(`job "${job.name}": the payload holds a NUL character (\\u0000), which PostgreSQL cannot store in JSON`);
    }
  }
}

/** Every job of a flow, depth first, without recursion. */
export function flowJobs(root: NewFlowNode): NewJob[] {
  const out: NewJob[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    out.push(node.job);
    stack.push(...node.children);
  }
  return out;
}
