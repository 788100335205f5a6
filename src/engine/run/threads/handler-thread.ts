/**
 * The entry of a handler thread (started by thread-pool.ts). It runs one job
 * at a time and outlives it: modules stay imported for the next job. Handler
 * failures become data (`failed` with an ErrorInfo) by the same rules as the
 * main-thread runner in job-runner.ts, so a job behaves alike with or
 * without isolation.
 */
import { parentPort } from 'node:worker_threads';
import type { ErrorInfo } from '../../../../machines/policy.js';
import { ValidationError } from '../../../errors.js';
import { serializeResult, toErrorInfo } from '../job-runner.js';
import type { FromThread, JobSpec, SettledOutcome, ToThread } from './messages.js';
import { ThreadContext } from './thread-context.js';
import { fromWireReason } from './wire-reason.js';
import { inTraceOf } from '../../../telemetry/remote-context.js';

type ThreadHandler = (payload: unknown, ctx: ThreadContext) => unknown;

const port = parentPort!;
const send = (m: FromThread): void => port.postMessage(m);
const modules = new Map<string, Promise<Record<string, unknown>>>();
let current: ThreadContext | undefined;

port.on('message', (m: ToThread) => {
  if (m.type === 'run') void run(m.seq, m.job);
  else if (current?.seq !== m.seq) return;
  else if (m.type === 'abort') current.abort(fromWireReason(m.reason));
  else current.settle(m);
});

async function run(seq: number, job: JobSpec): Promise<void> {
  const ctx = new ThreadContext(seq, job, send);
  current = ctx;
  let outcome: SettledOutcome;
  try {
    const handler = await loadHandler(job.module);
    const payload = JSON.parse(job.payload) as unknown;
    // A rate-limited job's token covers a start until its deadline only (engine/claim/rate-starts.ts).
    if (job.notAfter !== undefined && Date.now() >= job.notAfter) outcome = { kind: 'late' };
    else outcome = completed(await inTraceOf(job.trace, () => handler(payload, ctx)));
  } catch (err) {
    outcome = { kind: 'failed', error: errorInfo(err) };
  }
  ctx.end();
  current = undefined;
  send({ type: 'done', seq, outcome });
}

async function loadHandler(url: string): Promise<ThreadHandler> {
  let loading = modules.get(url);
  if (!loading) {
    loading = import(url) as Promise<Record<string, unknown>>;
    modules.set(url, loading);
    // A module that failed to load is tried again by the next job (the file may have been fixed).
    loading.catch(() => modules.delete(url));
  }
  const found = pickHandler(await loading);
  if (!found) {
    throw new ValidationError(`handler module ${url} exports no handler: expected a default export function, a function named "handler", or a default export with a "handler" function (a defineJob result)`);
  }
  return found;
}

function pickHandler(mod: Record<string, unknown>): ThreadHandler | undefined {
  const main = mod.default;
  if (typeof main === 'function') return main as ThreadHandler;
  if (typeof mod.handler === 'function') return mod.handler as ThreadHandler;
  const inner = typeof main === 'object' && main !== null ? (main as { handler?: unknown }).handler : undefined;
  return typeof inner === 'function' ? (inner as ThreadHandler).bind(main) : undefined;
}

/** The main-thread runner's rules (serializeResult): what JSON cannot hold fails as unrecoverable. */
function completed(value: unknown): SettledOutcome {
  return { kind: 'completed', result: serializeResult(value) };
}

function errorInfo(err: unknown): ErrorInfo {
  try {
    return toErrorInfo(err);
  } catch {
    // A thrown value whose every description throws (a hostile toString, a revoked Proxy).
    return { name: 'NonError', message: 'the handler threw a value that cannot be described' };
  }
}
