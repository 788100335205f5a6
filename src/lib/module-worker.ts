/**
 * Starts a worker thread from a module file, typed and compiled like the rest
 * of the code (never a string of code). From `dist/` the entry is a `.js`
 * file Node loads as it is; run from source (tests, `tsx`), the entry is a
 * `.ts` file, and the thread first registers tsx through ts-thread-boot.mjs.
 */
import { Worker, workerData, type WorkerOptions } from 'node:worker_threads';

export function startModuleWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  return new Worker(new URL('./ts-thread-boot.mjs', import.meta.url), {
    ...options,
    workerData: { entry: entry.href, data: options.workerData },
  });
}

/** Inside a thread started by startModuleWorker: its `workerData` (unwrapped when booted from source). */
export function threadWorkerData<T>(): T {
  const booted = (globalThis as { __litejobsBooted?: boolean }).__litejobsBooted === true;
  return (booted ? (workerData as { data: T }).data : workerData) as T;
}

/** The URL of a module beside `metaUrl` (`.ts` from source, `.js` from dist/). */
export function siblingModule(metaUrl: string, name: string): URL {
  return new URL(`./${name}.${metaUrl.endsWith('.ts') ? 'ts' : 'js'}`, metaUrl);
}
