/**
 * What a PostgreSQL store refuses before it writes: a payload whose JSON holds
 * the escape `\u0000`, or a lone surrogate (`\ud800` with no low half after
 * it). The text column would hold it, but PostgreSQL's jsonb cannot, so the
 * payload search (which reads payloads as jsonb) would fail on that row for
 * every search of its state. Refused at enqueue with a 400-class
 * ValidationError, as a payload the store cannot keep whole; SQLite keeps it.
 */
import { ValidationError } from '../../errors.js';
import type { NewFlowNode, NewJob } from '../store.js';

/** `\u0000` as an escape (an odd run of backslashes before it), not the text `\\u0000`. */
const NUL_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\u0000/;

/** An escape of half a surrogate pair somewhere: the payload is read whole to see whether one stands alone. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function checkStorable(jobs: readonly Pick<NewJob, 'name' | 'payload'>[]): void {
  for (const job of jobs) {
    if (job.payload.includes('\\u0000') && NUL_ESCAPE.test(job.payload)) {
      throw new ValidationError(`job "${job.name}": the payload holds a NUL character (\\u0000), which PostgreSQL cannot store in JSON`);
    }
    if (SURROGATE_ESCAPE.test(job.payload) && holdsLoneSurrogate(JSON.parse(job.payload) as unknown)) {
      throw new ValidationError(`job "${job.name}": the payload holds half of a UTF-16 surrogate pair (such as \\ud800 alone), which PostgreSQL cannot store in JSON`);
    }
  }
}

/** Whether a string of the value, or a key, holds a lone surrogate (iterative: a payload may nest 1,000 levels). */
function holdsLoneSurrogate(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    }
    else if (typeof v === 'object' && v !== null) {
      for (const [key, inner] of Object.entries(v)) {
        if (LONE_SURROGATE.test(key)) return true;
        stack.push(inner);
      }
    }
  }
  return false;
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
