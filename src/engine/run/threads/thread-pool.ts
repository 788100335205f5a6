/**
 * Runs handlers on a bounded pool of worker threads, so that synchronous CPU
 * work cannot starve the main thread's lease renewals, and a handler that
 * ignores its signal can still be stopped: the thread is terminated.
 *
 * Written by hand rather than on a pool package: an abort is two-phase here
 * (the thread's signal first, `terminate()` only after a grace period), the
 * ctx bridge needs a conversation per job, and the thread must start through
 * startModuleWorker so that it runs from source as well as from dist/.
 */
import type { Worker } from 'node:worker_threads';
import type { ErrorInfo } from '../../../../machines/policy.js';
import { QueueClosedError, ValidationError } from '../../../errors.js';
import { toErrorInfo } from '../job-runner.js';
import { siblingModule, startModuleWorker } from '../../../lib/module-worker.js';
import type { FromThread, JobSpec, LogLevel, ToThread } from './messages.js';
import { createSlots } from './slots.js';
import { toWireReason } from './wire-reason.js';

/** What a thread needs to run one job (defined beside the thread protocol, which the thread side imports). */
export type ThreadJob = JobSpec;

/** The main-thread side of a running job's ctx. */
export interface ThreadHost {
  /** Extends the lease; false when the lease was lost (then the handler's heartbeat() rejects with code LJ_ERR_LEASE_LOST). */
  heartbeat(): Promise<boolean>;
  /** Records progress (its JSON text); false when the lease was lost. */
  progress(text: string): Promise<boolean>;
  /** A log call made in the thread with ctx.log.<level>(obj?, msg?); an Error in `obj` arrives as a plain object. */
  log(level: LogLevel, obj: Record<string, unknown> | undefined, msg: string | undefined): void;
}

export type ThreadOutcome =
  | { kind: 'completed'; result: string | undefined }
  | { kind: 'failed'; error: ErrorInfo }
  /** Never called: past the job's `notAfter` when the thread got to it. */
  | { kind: 'late' }
  /** Aborted, and the handler did not settle within the grace period (the thread was terminated) or never started. */
  | { kind: 'terminated'; reason: unknown };

export interface ThreadPool {
  /** Runs one job on a free thread (waits for one when all are busy). Never rejects for handler failures. */
  run(job: ThreadJob, host: ThreadHost, signal: AbortSignal): Promise<ThreadOutcome>;
  /** Threads running a job now. */
  busy(): number;
  /** Terminates every thread (after running jobs settle or are terminated). */
  close(): Promise<void>;
}

export interface ThreadPoolOptions {
  /** Most jobs running at once, and so most threads. */
  size: number;
  /** How long an aborted handler may take to settle before its thread is terminated (ms). */
  graceMs?: number;
}

interface Run {
  seq: number;
  host: ThreadHost;
  /** The grace period ran out: the thread is being terminated, whatever it says now. */
  terminating: boolean;
  reason: unknown;
  finish(outcome: ThreadOutcome): void;
}

interface Thread {
  worker: Worker;
  run: Run | undefined;
  /** The uncaught error the thread reported before it exited, if any. */
  crash: unknown;
}

type Call = Extract<FromThread, { type: 'call' }>;

export function createThreadPool(options: ThreadPoolOptions): ThreadPool {
  const { size, graceMs = 1000 } = options;
  if (!Number.isInteger(size) || size < 1) throw new ValidationError('thread pool size must be an integer ≥ 1');
  if (!Number.isFinite(graceMs) || graceMs < 0) throw new ValidationError('thread pool graceMs must be a number ≥ 0');

  const slots = createSlots(size);
  const threads = new Set<Thread>();
  const idle: Thread[] = [];
  const accepted = new Set<Promise<ThreadOutcome>>();
  let lastSeq = 0;
  let closing: Promise<void> | undefined;

  const post = (thread: Thread, m: ToThread): void => thread.worker.postMessage(m);

  const spawn = (): Thread => {
    const worker = startModuleWorker(siblingModule(import.meta.url, 'handler-thread'));
    const thread: Thread = { worker, run: undefined, crash: undefined };
    threads.add(thread);
    worker.on('message', (m: FromThread) => onMessage(thread, m));
    const unpark = (): void => {
      const at = idle.indexOf(thread);
      if (at >= 0) idle.splice(at, 1);
    };
    worker.on('error', (err) => {
      // Dying (a stray error after its last job): no new job may be handed to it.
      thread.crash = err;
      unpark();
    });
    worker.once('exit', (code: number) => {
      threads.delete(thread);
      unpark();
      // The slot is given back only now, so a replacement never runs beside the thread it replaces.
      const run = thread.run;
      if (run) run.finish(run.terminating ? { kind: 'terminated', reason: run.reason } : { kind: 'failed', error: crashInfo(thread.crash, code) });
    });
    return thread;
  };

  const onMessage = (thread: Thread, m: FromThread): void => {
    const run = thread.run;
    if (!run || run.seq !== m.seq || run.terminating) return;
    if (m.type === 'done') {
      run.finish(m.outcome);
      // An idle thread must not keep the process alive.
      thread.worker.unref();
      idle.push(thread);
    } else if (m.type === 'log') {
      try {
        run.host.log(m.level, m.obj, m.msg);
      } catch {
        // A failing logger must not fail the job.
      }
    } else {
      void answer(thread, run, m);
    }
  };

  const answer = async (thread: Thread, run: Run, m: Call): Promise<void> => {
    let reply: ToThread;
    try {
      const value = m.op === 'heartbeat' ? await run.host.heartbeat() : await run.host.progress(m.value);
      reply = { type: 'reply', seq: m.seq, id: m.id, ok: true, value };
    } catch (err) {
      reply = { type: 'reply', seq: m.seq, id: m.id, ok: false, error: toErrorInfo(err) };
    }
    if (thread.run === run && !run.terminating) post(thread, reply);
  };

  const runOn = (thread: Thread, job: ThreadJob, host: ThreadHost, signal: AbortSignal): Promise<ThreadOutcome> =>
    new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const run: Run = {
        seq: ++lastSeq,
        host,
        terminating: false,
        reason: undefined,
        finish(outcome) {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          thread.run = undefined;
          resolve(outcome);
        },
      };
      // First the thread's own signal, so that a handler that listens can clean up and settle.
      function onAbort(): void {
        run.reason = signal.reason;
        post(thread, { type: 'abort', seq: run.seq, reason: toWireReason(signal.reason) });
        timer = setTimeout(() => {
          run.terminating = true;
          void thread.worker.terminate(); // its 'exit' settles the run
        }, graceMs);
      }
      thread.run = run;
      thread.worker.ref();
      post(thread, { type: 'run', seq: run.seq, job });
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });

  const runInSlot = async (job: ThreadJob, host: ThreadHost, signal: AbortSignal): Promise<ThreadOutcome> => {
    // Aborted before a thread was free: the handler never starts.
    if (signal.aborted || !(await slots.acquire(signal))) return { kind: 'terminated', reason: signal.reason };
    try {
      let thread: Thread;
      try {
        thread = idle.pop() ?? spawn();
      } catch (err) {
        return { kind: 'failed', error: toErrorInfo(err) };
      }
      return await runOn(thread, job, host, signal);
    } finally {
      slots.release();
    }
  };

  return {
    run(job, host, signal) {
      if (closing) return Promise.reject(new QueueClosedError());
      const outcome = runInSlot(job, host, signal);
      accepted.add(outcome);
      const forget = (): void => void accepted.delete(outcome);
      outcome.then(forget, forget);
      return outcome;
    },
    busy() {
      let n = 0;
      for (const thread of threads) if (thread.run) n++;
      return n;
    },
    close() {
      closing ??= (async () => {
        // Jobs already accepted (running or waiting) run to their outcome; the caller aborts them if it is in a hurry.
        await Promise.allSettled([...accepted]);
        await Promise.all([...threads].map((thread) => thread.worker.terminate()));
      })();
      return closing;
    },
  };
}

function crashInfo(crash: unknown, code: number): ErrorInfo {
  if (crash !== undefined) return toErrorInfo(crash);
  return { name: 'Error', message: `the job's thread exited with code ${code} before the handler settled` };
}
